// @kbx scratch w f64 [max(1, n * n)]
// @kbx launch cholesky_coop<<<sms, 256>>>(a, l, w, batch, n, upper) cooperative
