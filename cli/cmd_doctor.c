/* kbx doctor: what this machine can do. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/golden.h"
#include "../core/gpu.h"
#include "../core/nvrtc.h"
#include "../core/util.h"
#include "../db/db.h"
#include "cli.h"

static void line(const char *what, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void line(const char *what, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%-10s %-4s ", what, ok ? "ok" : "--");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

int cmd_doctor(struct cli *c, int argc, char **argv)
{
	struct gpu_info info;
	int count = 0, problems = 0;
	struct db *db;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: kbx doctor\n\nCheck the driver, GPU, NVRTC, the history database, the catalogue and the golden table.");
		return 0;
	}
	if (!gpu_built()) {
		line("gpu", 0, "GPU support was not built (configure found no CUDA headers)");
		problems++;
	} else if (gpu_probe(0, &info, &count) != KBX_OK) {
		line("gpu", 0, "%s", kbx_last_error());
		problems++;
	} else {
		line("driver", 1, "CUDA driver %d.%d", info.driver_version / 1000, info.driver_version % 1000 / 10);
		line("gpu", 1, "%s (sm_%d%d, %d SMs, %.0f GiB, L2 %d MiB), %d device%s", info.name, info.cc_major,
		     info.cc_minor, info.sms, info.total_mem / 1073741824.0, info.l2_bytes >> 20, count, count == 1 ? "" : "s");
	}
	if (!nvrtc_built()) {
		line("nvrtc", 0, "not built");
		problems++;
	} else {
		struct nvrtc_output out;
		char inc[4096];

		snprintf(inc, sizeof(inc), "%s/include", c->tasks_root);
		if (nvrtc_compile("extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n", "doctor.cu", 90,
				  nvrtc_cuda_include(), inc, &out) == KBX_OK && out.ok)
			line("nvrtc", 1, "NVRTC %s compiles for sm_90 (%.2f s); CUDA headers in %s", nvrtc_version(), out.seconds,
			     nvrtc_cuda_include());
		else {
			line("nvrtc", 0, "NVRTC %s cannot compile a trivial kernel: %s", nvrtc_version(),
			     out.log ? out.log : kbx_last_error());
			problems++;
		}
		nvrtc_output_free(&out);
	}
	if (cli_catalogue(c) == 0)
		line("tasks", 1, "%d tasks in %s", c->cat.ntasks, c->cat.root);
	else
		problems++;
	if (db_open(c->db_path, &db) == KBX_OK) {
		line("history", 1, "%s (schema %d)", c->db_path, db_schema_version(db));
		db_close(db);
	} else {
		line("history", 0, "%s", kbx_last_error());
		problems++;
	}
	if (count > 0) {
		struct golden_table *g;

		if (golden_match(c->tasks_root, info.name, &g) == KBX_OK) {
			line("golden", 1, "table '%s' matches %s", golden_gpu(g), info.name);
			golden_free(g);
		} else {
			line("golden", 0, "%s: speedups vs golden unavailable, vs reference still reported", kbx_last_error());
		}
	} else {
		char **names;
		int n = golden_list(c->tasks_root, &names), i;
		struct sbuf sb = SBUF_INIT;

		for (i = 0; i < n; i++) {
			sbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
			free(names[i]);
		}
		free(names);
		line("golden", n > 0, "tables: %s (no GPU to match)", sb.len ? sb.buf : "none");
		sbuf_release(&sb);
	}
	return problems ? 1 : 0;
}
