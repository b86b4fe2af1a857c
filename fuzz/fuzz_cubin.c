/*
 * fuzz_cubin.c - compiled images through core/cubin.c cubin_kernel_params: ELF headers, section
 * tables, names and attribute records that lie about their sizes.
 *
 * Beyond not crashing or reading outside the input (ASan): a success reports a count within the
 * parser's bound, and sizes for the parameters it reports.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/cubin.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "kk", "one", "noparams", "gelu_f32", "" };
	size_t sizes[8];
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int count = -1;
		enum kbx_status st = cubin_kernel_params(data, size, names[i], sizes, 8, &count);

		if (st == KBX_OK && (count < 0 || count > 4096))
			abort();
		if (st != KBX_OK && count != 0)
			abort();
	}
	return 0;
}
