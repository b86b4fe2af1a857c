#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *npy_descr(enum dtype dt)
{
	switch (dt) {
	case DT_F32: return "<f4";
	case DT_F64: return "<f8";
	case DT_F16: return "<f2";
	case DT_BF16: return "<f4";
	case DT_I8: return "|i1";
	case DT_U8: return "|u1";
	case DT_I16: return "<i2";
	case DT_I32: return "<i4";
	case DT_I64: return "<i8";
	case DT_BOOL: return "|b1";
	case DT_C64: return "<c8";
	case DT_COUNT: break;
	}
	return "|u1";
}

enum kbx_status npy_write(const char *path, enum dtype dt, const void *data, const long long *shape, int ndim)
{
	struct sbuf h = SBUF_INIT, out = SBUF_INIT;
	size_t n = 1, total, i;
	unsigned char magic[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0 };
	enum kbx_status st;
	int d;

	for (d = 0; d < ndim; d++)
		n *= (size_t)shape[d];
	sbuf_addf(&h, "{'descr': '%s', 'fortran_order': False, 'shape': (", npy_descr(dt));
	for (d = 0; d < ndim; d++)
		sbuf_addf(&h, "%lld%s", shape[d], ndim == 1 ? "," : d + 1 < ndim ? ", " : "");
	sbuf_adds(&h, "), }");
	/* Pad with spaces so that the data starts on a 64-byte boundary; end with a newline. */
	total = sizeof(magic) + h.len + 1;
	while (total % 64) {
		sbuf_adds(&h, " ");
		total++;
	}
	sbuf_adds(&h, "\n");
	magic[8] = (unsigned char)(h.len & 0xff);
	magic[9] = (unsigned char)(h.len >> 8);
	sbuf_add(&out, (const char *)magic, sizeof(magic));
	sbuf_add(&out, h.buf, h.len);
	if (dt == DT_BF16) {
		for (i = 0; i < n; i++) {
			float f = bf16_to_f32(((const uint16_t *)data)[i]);

			sbuf_add(&out, (const char *)&f, sizeof(f));
		}
	} else if (n) {
		sbuf_add(&out, data, n * dtype_size(dt));
	}
	st = write_file(path, out.buf, out.len);
	sbuf_release(&h);
	sbuf_release(&out);
	return st;
}
