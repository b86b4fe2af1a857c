/* kbx doctor: what this machine can do; --calibrate: what its GPU has been measured to do. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "../core/calibrate.h"
#include "../core/golden.h"
#include "../core/gpu.h"
#include "../core/nvrtc.h"
#include "../core/pyworker.h"
#include "../core/util.h"
#include "../core/worker.h"
#include "../db/db.h"
#include "cli.h"

static const char doctor_usage[] =
	"usage: kbx doctor [--calibrate] [--device N] [--python PATH]\n"
	"\n"
	"Check the driver, GPU, NVRTC, the history database, the catalogue and the golden table,\n"
	"show the GPU's stored calibration, and the Python side that runs Python/Triton candidates\n"
	"(interpreter, PyTorch, Triton, the GPU torch sees, the worker).\n"
	"\n"
	"options:\n"
	"  --calibrate   measure the GPU's copy bandwidth, f32 FMA and f16 tensor-core throughput\n"
	"                (in a worker, some seconds) and store them in the history; `kbx run` then\n"
	"                shows each perf row's GB/s and TFLOP/s also as a percentage of them\n"
	"  --device N    the CUDA device to check or calibrate (default 0)\n"
	"  --python PATH the interpreter to check (default $KBX_PYTHON, else the configured one)\n";

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

/* "copy 3921 GB/s (82% of the theoretical 4800), f32 FMA 58.1 TFLOP/s, f16 tensor 512 TFLOP/s" */
static void describe(const struct calibration *cal, char *buf, size_t len)
{
	char tensor[64];
	double share = calibrate_fraction(cal->copy_gbps, cal->peak_gbps);

	if (cal->tensor_tflops > 0)
		snprintf(tensor, sizeof(tensor), "%.4g TFLOP/s", cal->tensor_tflops);
	else
		snprintf(tensor, sizeof(tensor), "not measured");
	if (share > 0)
		snprintf(buf, len, "copy %.4g GB/s (%.0f%% of the theoretical %.4g), f32 FMA %.4g TFLOP/s, f16 tensor %s",
			 cal->copy_gbps, 100 * share, cal->peak_gbps, cal->fma_tflops, tensor);
	else
		snprintf(buf, len, "copy %.4g GB/s, f32 FMA %.4g TFLOP/s, f16 tensor %s", cal->copy_gbps,
			 cal->fma_tflops, tensor);
}

static void when(double t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, len, "at an unknown time");
}

static void cal_progress_log(void *ctx, const char *text)
{
	(void)ctx;
	printf("           %s\n", text);
	fflush(stdout);
}

/* kbx doctor --calibrate: measure in a worker, print, store. */
static int calibrate(struct cli *c, int device)
{
	struct run_events progress = { .log = cal_progress_log };
	struct calibration cal;
	struct gpu_info info;
	char share[64] = "";
	struct db *db;
	int count = 0;
	double f;

	/* The same checks the worker would make, here first for a plain message without a worker. */
	if (!gpu_built())
		return cli_fail(1, "cannot calibrate: GPU support was not built (configure found no CUDA headers)");
	if (gpu_probe(device, &info, &count) != KBX_OK)
		return cli_fail(1, "cannot calibrate: %s", kbx_last_error());
	printf("calibrating %s%s%s%s, device %d\n", info.name, info.uuid[0] ? " (" : "", info.uuid,
	       info.uuid[0] ? ")" : "", device);
	fflush(stdout);
	if (worker_calibrate(NULL, device, &progress, &cal) != KBX_OK)
		return cli_fail(1, "cannot calibrate '%s': %s", info.name, kbx_last_error());
	f = calibrate_fraction(cal.copy_gbps, cal.peak_gbps);
	if (f > 0)
		snprintf(share, sizeof(share), "  (%.0f%% of the theoretical %.4g GB/s)", 100 * f, cal.peak_gbps);
	printf("copy       %10.4g GB/s%s\n", cal.copy_gbps, share);
	printf("f32 FMA    %10.4g TFLOP/s\n", cal.fma_tflops);
	if (cal.tensor_tflops > 0)
		printf("f16 tensor %10.4g TFLOP/s  (wmma: below the datasheet's dense peak, see doc/timing.md)\n",
		       cal.tensor_tflops);
	else
		printf("f16 tensor %10s\n", "not measured");
	if (db_open(c->db_path, &db) != KBX_OK)
		return cli_fail(1, "the calibration was not stored: %s", kbx_last_error());
	if (db_calibration_save(db, &cal) != KBX_OK) {
		db_close(db);
		return cli_fail(1, "the calibration was not stored: %s", kbx_last_error());
	}
	db_close(db);
	printf("stored     in %s; `kbx run` shows GB/s and TFLOP/s as a percentage of it\n", c->db_path);
	return 0;
}

/* The calibration line of plain `kbx doctor`: the device's, or how to make one. */
static void show_calibration(struct db *db, const struct gpu_info *info, int device)
{
	struct calibration cal;
	char what[512], at[64], opt[32] = "";

	if (db_calibration_find(db, info->uuid, info->name, &cal) != KBX_OK) {
		kbx_clear_error();
		if (device)
			snprintf(opt, sizeof(opt), " --device %d", device);
		line("calib", 0, "none for %s: `kbx doctor --calibrate%s` measures it, then `kbx run` shows GB/s and "
		     "TFLOP/s as a percentage of it", info->name, opt);
		return;
	}
	describe(&cal, what, sizeof(what));
	when(cal.measured_at, at, sizeof(at));
	/* Found by name: another board of the same model, which may differ from this one. */
	if (info->uuid[0] && strcmp(cal.gpu_uuid, info->uuid))
		line("calib", 1, "%s; measured %s on another board of the model (%s)", what, at,
		     cal.gpu_uuid[0] ? cal.gpu_uuid : "no UUID");
	else
		line("calib", 1, "%s; measured %s", what, at);
}

/* The Python side (Python/Triton candidates): interpreter, torch, Triton, the GPU torch sees,
 * and the worker's program and library. Only a missing worker part is a problem: PyTorch and
 * Triton are needed for Python candidates alone. */
static const char py_probe[] =
	"import sys\n"
	"print('python', sys.executable, sys.version.split()[0])\n"
	"try:\n"
	"    import torch\n"
	"    ok = torch.cuda.is_available()\n"
	"    print('torch', torch.__version__, 'cuda', torch.version.cuda, 'gpu', torch.cuda.get_device_name(0) if ok else '-')\n"
	"except Exception as e:\n"
	"    print('no-torch', type(e).__name__, str(e).splitlines()[0] if str(e) else '')\n"
	"try:\n"
	"    import triton\n"
	"    print('triton', triton.__version__)\n"
	"except Exception as e:\n"
	"    print('no-triton', type(e).__name__, str(e).splitlines()[0] if str(e) else '')\n";

static int python_side(const struct cli *c, const char *python)
{
	struct pyworker_paths p;
	char exe[4096], cmd[8192], buf[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int problems = 0, seen = 0;

	exe[n > 0 ? n : 0] = '\0';
	if (pyworker_paths(python, c->tasks_root, exe, &p) != KBX_OK) {
		int no_python = strstr(kbx_last_error(), "interpreter") != NULL;

		line("python", 0, "%s", kbx_last_error());
		return no_python ? 0 : 1;
	}
	if (strchr(p.python, '\'')) {
		line("python", 0, "'%s': a path with a quote is not probed", p.python);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "timeout 60 '%s' -c \"$KBX_PY_PROBE\" 2>&1", p.python);
	setenv("KBX_PY_PROBE", py_probe, 1);
	f = popen(cmd, "r");
	while (f && fgets(buf, sizeof(buf), f)) {
		char *nl = strchr(buf, '\n');

		if (nl)
			*nl = '\0';
		seen = 1;
		if (!strncmp(buf, "python ", 7))
			line("python", 1, "%s", buf + 7);
		else if (!strncmp(buf, "torch ", 6))
			line("torch", 1, "%s", buf + 6);
		else if (!strncmp(buf, "no-torch ", 9))
			line("torch", 0, "not importable (%s): Python candidates cannot run", buf + 9);
		else if (!strncmp(buf, "triton ", 7))
			line("triton", 1, "%s", buf + 7);
		else if (!strncmp(buf, "no-triton ", 10))
			line("triton", 0, "not importable (%s): Python candidates cannot run", buf + 10);
	}
	if (f)
		pclose(f);
	unsetenv("KBX_PY_PROBE");
	if (!seen)
		line("python", 0, "'%s' did not answer", p.python);
	line("pyworker", 1, "%s with %s", p.program, p.library);
	return problems;
}

int cmd_doctor(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "calibrate", no_argument, NULL, 'c' }, { "device", required_argument, NULL, 'D' },
		{ "python", required_argument, NULL, 'Y' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	struct gpu_info info;
	const char *python = NULL;
	int count = 0, problems = 0, opt, device = 0, do_calibrate = 0;
	struct db *db;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': do_calibrate = 1; break;
		case 'Y': python = optarg; break;
		case 'D':
			if (calibrate_parse_device(optarg, &device) != KBX_OK)
				return cli_fail(2, "--device: %s", kbx_last_error());
			break;
		case 'h': fputs(doctor_usage, stdout); return 0;
		default: return cli_bad_option("doctor", opt, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("doctor", "takes no arguments ('%s')", argv[optind]);
	if (do_calibrate)
		return calibrate(c, device);
	if (!gpu_built()) {
		line("gpu", 0, "GPU support was not built (configure found no CUDA headers)");
		problems++;
	} else if (gpu_probe(device, &info, &count) != KBX_OK) {
		line("gpu", 0, "%s", kbx_last_error());
		problems++;
		/* A --device past the last one: the driver counted devices, but info is not filled. */
		count = 0;
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
		long long kept = 0, bytes = 0;

		line("history", 1, "%s (schema %d)", c->db_path, db_schema_version(db));
		if (db_refout_usage(db, &kept, &bytes) == KBX_OK)
			line("kept", 1, "%lld reference output(s) of perf rows, %.1f MiB of at most %lld MiB "
			     "(kbx db drop-outputs drops them)", kept, bytes / 1048576.0, DB_REFOUTS_MAX_BYTES >> 20);
		else
			kbx_clear_error();
		if (count > 0)
			show_calibration(db, &info, device);
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
	problems += python_side(c, python);
	return problems ? 1 : 0;
}
