// @kbx scratch q_scale f32 [b, s]
// @kbx scratch k_scale f32 [b, s]
// @kbx scratch v_scale f32 [b, s]
// @kbx scratch q_q i8 [b, s, d]
// @kbx scratch k_q i8 [b, s, d]
// @kbx scratch v_q i8 [b, s, d]
// @kbx scratch scores f32 [b, s, s]
// @kbx scratch probs f32 [b, s, s]
// @kbx launch quant_rows<<<max(1, cdiv(b * s, 8)), 256>>>(query, q_q, q_scale, i64(b * s), d, i32(1))
// @kbx launch quant_rows<<<max(1, cdiv(b * s, 8)), 256>>>(key, k_q, k_scale, i64(b * s), d, i32(0))
// @kbx launch quant_rows<<<max(1, cdiv(b * s, 8)), 256>>>(value, v_q, v_scale, i64(b * s), d, i32(0))
// @kbx launch scores_i8<<<dim3(max(1, cdiv(s, 64)), max(1, cdiv(s, 64)), max(1, b)), 256>>>(q_q, k_q, q_scale, k_scale, scores, b, s, d)
// @kbx launch softmax_rows<<<max(1, b * s), 256>>>(scores, probs, i64(b * s), s)
// @kbx launch pv_f32<<<dim3(max(1, cdiv(d, 64)), max(1, cdiv(s, 32)), max(1, b)), 256>>>(probs, v_q, v_scale, out, b, s, d)
