// @kbx scratch add f32 [b, c, d]
// @kbx scratch mean_part f64 [b * d * max(1, min(cdiv(c, 8192), 1024))]
// @kbx launch add_alpha<<<max(1, min(cdiv(b * c * d, 1024), 65536)), 256>>>(input, other, add, b, c, d, ob, oc, od, alpha)
// @kbx launch mean_partial<<<dim3(max(1, b * d), max(1, min(cdiv(c, 8192), 1024))), 256>>>(add, mean_part, b, c, d)
// @kbx launch mean_final<<<max(1, b * d), 256>>>(mean_part, y, i64(b * d), i64(max(1, min(cdiv(c, 8192), 1024))), c)
