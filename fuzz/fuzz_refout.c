/*
 * fuzz_refout.c - kept reference outputs (core/refout.c refout_unpack): blobs from the history
 * that lie about their count, their sizes or their length.
 *
 * Beyond not crashing or reading outside the input (ASan): a blob accepted is exactly the one
 * refout_pack makes of the outputs it gave back, byte for byte, and a refused one leaves nothing
 * allocated.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/problem.h"
#include "../core/refout.h"
#include "../core/task.h"
#include "fuzz.h"

/* an input, an inout and an output of other dtypes: perf row 0 has 4 + 2 elements of outputs */
static const char ini[] =
	"[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\n"
	"[args]\nx = in f32 [n]\nacc = inout f64 [n]\ny = out f32 [m]\nn = i64\nm = i64\n"
	"[inputs]\nx = randn\nacc = randn\n[case.one]\nn = 3\nm = 2\n"
	"[perf]\nn = 4\nm = 2\nx = uniform(0, 1)\nacc = uniform(0, 1)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct task *t;
	static struct problem pb;
	void **out = (void **)&out;   /* must come back untouched when refused */

	if (!t) {
		if (task_parse_text(ini, "mem/task.ini", "Cat", "t", &t) != KBX_OK ||
		    problem_from_perf(t, 0, &pb) != KBX_OK)
			abort();
	}
	if (refout_unpack(&pb, data, size, &out) != KBX_OK) {
		kbx_clear_error();
		if (out != (void **)&out)
			abort();
		return 0;
	}
	{
		size_t again;
		void *blob = refout_pack(&pb, out, &again);

		if (again != size || memcmp(blob, data, size))
			abort();
		free(blob);
	}
	if (out[0])   /* the input has no slot */
		abort();
	for (int i = 0; i < pb.nbufs; i++)
		free(out[i]);
	free(out);
	return 0;
}
