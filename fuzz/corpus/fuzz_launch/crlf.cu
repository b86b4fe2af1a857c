// @kbx launch k<<<pow2(3) / 2, max(1, -n + 3)>>>(x)
// @kbx scratch s u8 [(n + 1) * 2, 3]
