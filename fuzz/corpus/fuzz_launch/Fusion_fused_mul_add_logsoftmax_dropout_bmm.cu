// @kbx scratch mul f32 [b, m, n]
// @kbx scratch add f32 [b, m, n]
// @kbx scratch log_softmax_max f64 [(dim - 1) * b * m + (2 - dim) * b * n]
// @kbx scratch log_softmax_logsum f64 [(dim - 1) * b * m + (2 - dim) * b * n]
// @kbx scratch log_softmax f32 [b, m, n]
// @kbx scratch dropout f32 [b, m, n]
// @kbx launch mul_fwd<<<max(1, min(cdiv(b * m * n, 1024), 65536)), 256>>>(input1, input2, mul, i64(b * m * n))
// @kbx launch add_bcast<<<max(1, min(cdiv(b * m * n, 1024), 65536)), 256>>>(mul, other, add, b, m, n, ob, om)
// @kbx launch lsm_stats<<<max(1, ((dim - 1) * b * m + (2 - dim) * b) * cdiv((dim - 1) + (2 - dim) * n, 32)), 256>>>(add, log_softmax_max, log_softmax_logsum, i64((dim - 1) * b * m + (2 - dim) * b), i64((dim - 1) * n + (2 - dim) * m), i64((dim - 1) + (2 - dim) * n))
// @kbx launch lsm_apply<<<max(1, min(cdiv(b * m * n, 1024), 65536)), 256>>>(add, log_softmax_max, log_softmax_logsum, log_softmax, i64(b * m * n), i64((dim - 1) * n + (2 - dim) * m), i64((dim - 1) + (2 - dim) * n))
// @kbx launch dropout_fwd<<<max(1, min(cdiv(b * m * n, 1024), 65536)), 256>>>(log_softmax, dropout, i64(b * m * n), p, training, seed)
// @kbx launch bmm_nn<<<dim3(max(1, cdiv(q, 64)), max(1, cdiv(m, 64)), max(1, b)), 256>>>(dropout, mat2, y, b, m, n, q)
