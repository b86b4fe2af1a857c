// @kbx launch leaky_relu_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n, negative_slope)
