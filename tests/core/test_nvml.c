/*
 * Tests for core/nvml.c: reason naming and bus ids (pure), opening without NVML, reading through
 * a fake libnvidia-ml (tests/core/fake_nvml.c, built next to this test), the window summary,
 * and, where a GPU and NVML are present, plausible readings of the real device (reported as a
 * skipped test, not a skipped program, when they are not: the rest still counts).
 */
#include <dlfcn.h>
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/gpu.h"
#include "core/nvml.h"

/* room for the folder of this program (at most 4095 bytes) and a file name */
static char fake_lib[4200], fake_old_lib[4200];
static int real_skipped;

static const char *text(unsigned long long reasons)
{
	static char buf[128];

	return clock_reasons_text(reasons, buf, sizeof(buf));
}

static void test_reasons_text(void **state)
{
	char small[8];
	char zero[1] = { 'x' };

	(void)state;
	assert_string_equal(text(0), "");
	assert_string_equal(text(CLOCK_REASON_GPU_IDLE | CLOCK_REASON_APP_CLOCKS), "");
	assert_string_equal(text(CLOCK_REASON_SYNC_BOOST | CLOCK_REASON_DISPLAY_CLOCKS), "");
	assert_string_equal(text(CLOCK_REASON_SW_POWER_CAP), "power cap");
	assert_string_equal(text(CLOCK_REASON_SW_POWER_CAP | CLOCK_REASON_SW_THERMAL | CLOCK_REASON_GPU_IDLE),
			    "power cap, thermal");
	assert_string_equal(text(CLOCK_REASON_HW_SLOWDOWN), "hw slowdown");
	/* NVML raises hw slowdown along with its cause: the cause is named alone */
	assert_string_equal(text(CLOCK_REASON_HW_SLOWDOWN | CLOCK_REASON_HW_THERMAL), "hw thermal");
	assert_string_equal(text(CLOCK_REASON_HW_SLOWDOWN | CLOCK_REASON_HW_POWER_BRAKE), "power brake");
	assert_string_equal(text(~0ULL), "power cap, thermal, hw thermal, power brake");
	/* bits NVML may add later are not named */
	assert_string_equal(text(1ULL << 40), "");
	/* cut to the buffer, always terminated */
	assert_string_equal(clock_reasons_text(CLOCK_REASON_SW_POWER_CAP | CLOCK_REASON_SW_THERMAL, small,
					       sizeof(small)), "power c");
	assert_string_equal(clock_reasons_text(CLOCK_REASON_SW_POWER_CAP, small, 1), "");
	assert_string_equal(clock_reasons_text(CLOCK_REASON_SW_POWER_CAP, zero, 0), "");
	assert_true(zero[0] == 'x');
	assert_string_equal(clock_reasons_text(CLOCK_REASON_SW_POWER_CAP, NULL, 16), "");
}

static void test_reasons_slowdown(void **state)
{
	(void)state;
	assert_false(clock_reasons_slowdown(0));
	assert_false(clock_reasons_slowdown(CLOCK_REASON_GPU_IDLE));
	assert_false(clock_reasons_slowdown(CLOCK_REASON_APP_CLOCKS));
	assert_false(clock_reasons_slowdown(CLOCK_REASON_SYNC_BOOST));
	assert_false(clock_reasons_slowdown(CLOCK_REASON_DISPLAY_CLOCKS));
	assert_false(clock_reasons_slowdown(1ULL << 63));
	assert_true(clock_reasons_slowdown(CLOCK_REASON_SW_POWER_CAP));
	assert_true(clock_reasons_slowdown(CLOCK_REASON_HW_SLOWDOWN));
	assert_true(clock_reasons_slowdown(CLOCK_REASON_SW_THERMAL));
	assert_true(clock_reasons_slowdown(CLOCK_REASON_HW_THERMAL));
	assert_true(clock_reasons_slowdown(CLOCK_REASON_HW_POWER_BRAKE));
	/* NVML's values, so that a stored mask means what NVML says */
	assert_true(CLOCK_REASONS_SLOWDOWN == 0xECULL);
}

static void test_bus_id(void **state)
{
	static const char *good[] = {
		"0000:19:00.0", "00000000:19:00.0", "19:00.0", "0:0:0.0", "ABCD:EF:1f.7", "0000:19:1F.7",
		"ffffffff:ff:1f.7", "1:2.3",
	};
	static const char *bad[] = {
		"", "0000:19:00", "0000:19:00.8", "0000:19:20.0", "0000:119:00.0", "000000000:19:00.0",
		"0000:19:00.0 ", " 0000:19:00.0", "0000:19:00.00", "0000:19:00.", "g000:19:00.0", "0000::00.0",
		"0000:19:00:0", "119:00.0", "0000-19-00.0", "0000:19:00.0\n", ":19:00.0", "0000:19:.0", ".",
		"0000:19:000.0", "GPU-1234", "0x00:19:00.0",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (!nvml_bus_id_ok(good[i]))
			fail_msg("'%s' should be a bus id", good[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (nvml_bus_id_ok(bad[i]))
			fail_msg("'%s' should not be a bus id", bad[i]);
	}
	assert_false(nvml_bus_id_ok(NULL));
}

/* Garbage against a regular expression of the same grammar (and the ranges it cannot say). */
static void test_bus_id_garbage(void **state)
{
	static const char alphabet[] = "0123456789abcdefABCDEFgx:.: -\t";
	regex_t re;
	char s[24];
	unsigned seed = 12345;
	int iter;

	(void)state;
	assert_int_equal(regcomp(&re, "^([0-9a-fA-F]{1,8}:)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\\.([0-7])$",
				 REG_EXTENDED), 0);
	for (iter = 0; iter < 200000; iter++) {
		regmatch_t m[5];
		int len, i, expect;

		seed = seed * 1103515245u + 12345u;
		len = (int)((seed >> 16) % 20);
		for (i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			s[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		s[len] = '\0';
		/* Every fifth string starts from a valid one and has one character changed. */
		if (iter % 5 == 0) {
			strcpy(s, "0000:19:0a.3");
			s[(seed >> 8) % 12] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
		}
		expect = regexec(&re, s, 5, m, 0) == 0;
		if (expect && strtoul(s + m[3].rm_so, NULL, 16) > 0x1f)
			expect = 0;
		if (nvml_bus_id_ok(s) != expect)
			fail_msg("'%s': nvml_bus_id_ok says %d, the grammar %d", s, !expect, expect);
	}
	regfree(&re);
}

static void test_open_bad_arguments(void **state)
{
	struct nvml *nv = (struct nvml *)&nv;

	(void)state;
	assert_int_equal(nvml_open(NULL, &nv), KBX_EINVAL);
	assert_null(nv);
	assert_int_equal(nvml_open("", &nv), KBX_EINVAL);
	assert_int_equal(nvml_open("not a bus id", &nv), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "'not a bus id'"));
	assert_int_equal(nvml_open_library(NULL, "0000:19:00.0", &nv), KBX_EINVAL);
	assert_int_equal(nvml_open_library("", "0000:19:00.0", &nv), KBX_EINVAL);
	assert_null(nv);
}

static void test_open_without_library(void **state)
{
	struct nvml *nv = NULL;
	void *h;

	(void)state;
	assert_int_equal(nvml_open_library("libkbx-no-such-nvml.so.1", "0000:19:00.0", &nv), KBX_ENOTFOUND);
	assert_null(nv);
	assert_non_null(strstr(kbx_last_error(), "cannot load NVML 'libkbx-no-such-nvml.so.1'"));
	/* a library that is not NVML */
	assert_int_equal(nvml_open_library("libm.so.6", "0000:19:00.0", &nv), KBX_ENOTFOUND);
	assert_null(nv);
	assert_non_null(strstr(kbx_last_error(), "has no 'nvmlInit_v2'"));
	/* and the real name, where this machine has no NVML (CI, the development machine) */
	h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		dlclose(h);
		return;
	}
	assert_int_equal(nvml_open("0000:19:00.0", &nv), KBX_ENOTFOUND);
	assert_null(nv);
	assert_non_null(strstr(kbx_last_error(), "cannot load NVML 'libnvidia-ml.so.1'"));
}

static void test_read_null(void **state)
{
	struct clock_reading r;

	(void)state;
	memset(&r, 0xff, sizeof(r));
	kbx_error(KBX_EIO, "earlier message");
	assert_int_equal(nvml_read(NULL, &r), KBX_ENOTFOUND);
	assert_int_equal(r.valid, 0);
	assert_true(r.sm_mhz == 0 && r.reasons == 0 && r.reasons_valid == 0);
	assert_string_equal(kbx_last_error(), "earlier message");
	assert_string_equal(nvml_bus_id(NULL), "");
	nvml_close(NULL);
}

static struct clock_reading reading(double sm, double mem, double temp, double power, unsigned long long reasons,
				    int reasons_valid)
{
	struct clock_reading r;

	memset(&r, 0, sizeof(r));
	r.sm_mhz = sm;
	r.mem_mhz = mem;
	r.max_sm_mhz = sm > 0 ? 1980 : 0;
	r.temp_c = temp;
	r.power_w = power;
	r.reasons = reasons;
	r.reasons_valid = reasons_valid;
	r.valid = sm > 0;
	return r;
}

static void test_window(void **state)
{
	struct clock_window w;
	struct clock_summary s;

	(void)state;
	w.before = reading(1980, 2619, 40, 300, CLOCK_REASON_GPU_IDLE, 1);
	w.after = reading(1755, 2619, 55, 690, CLOCK_REASON_SW_POWER_CAP, 1);
	clock_window_summarize(&w, &s);
	assert_int_equal(s.valid, 2);
	assert_true(s.sm_mhz == (1980 + 1755) / 2.0);
	assert_true(s.min_sm_mhz == 1755);
	assert_true(s.mem_mhz == 2619 && s.max_sm_mhz == 1980);
	assert_true(s.temp_c == 55 && s.power_w == 690);
	assert_true(s.reasons == (CLOCK_REASON_GPU_IDLE | CLOCK_REASON_SW_POWER_CAP) && s.reasons_valid);

	/* the lower reading first: min is not just "the second one" */
	w.before = reading(1500, 0, 0, 0, 0, 0);
	w.after = reading(1700, 2619, 50, 400, CLOCK_REASON_SW_THERMAL, 1);
	clock_window_summarize(&w, &s);
	assert_true(s.sm_mhz == 1600 && s.min_sm_mhz == 1500);
	assert_true(s.mem_mhz == 2619);  /* only the reading that has it */
	assert_true(s.reasons == CLOCK_REASON_SW_THERMAL && s.reasons_valid);

	/* one valid reading: it alone */
	w.before = reading(0, 0, 0, 0, 0, 0);
	w.after = reading(1755, 2619, 50, 400, 0, 1);
	clock_window_summarize(&w, &s);
	assert_int_equal(s.valid, 1);
	assert_true(s.sm_mhz == 1755 && s.min_sm_mhz == 1755);

	/* a reading marked valid with a zero clock is no reading */
	w.before = reading(0, 0, 0, 0, CLOCK_REASON_SW_POWER_CAP, 1);
	w.before.valid = 1;
	clock_window_summarize(&w, &s);
	assert_int_equal(s.valid, 1);
	assert_true(s.reasons == 0);

	/* none */
	memset(&w, 0, sizeof(w));
	clock_window_summarize(&w, &s);
	assert_int_equal(s.valid, 0);
	assert_true(s.sm_mhz == 0 && s.min_sm_mhz == 0 && s.reasons == 0 && !s.reasons_valid);
	memset(&s, 0xff, sizeof(s));
	clock_window_summarize(NULL, &s);
	assert_int_equal(s.valid, 0);
	assert_true(s.sm_mhz == 0);
}

/* ---- through the fake library ------------------------------------------------------------- */

static int (*fake_live)(void);
static char fake_error[512] = "not looked for";
static void *fake_handle;

static int fake_setup(void **state)
{
	(void)state;
	unsetenv("FAKE_NVML_FAIL");
	unsetenv("FAKE_NVML_SM");
	unsetenv("FAKE_NVML_REASONS");
	unsetenv("FAKE_NVML_THROTTLE_REASONS");
	return 0;
}

static void need_fake(void)
{
	/* make check builds it along with this test: missing means a broken build, not a skip */
	if (!fake_handle)
		fail_msg("no fake NVML next to the test ('%s'): %s", fake_lib, fake_error);
}

static void test_fake_read(void **state)
{
	struct nvml *nv = NULL;
	struct clock_reading r;

	(void)state;
	need_fake();
	setenv("FAKE_NVML_REASONS", "4", 1);
	assert_int_equal(nvml_open_library(fake_lib, "0000:19:00.0", &nv), KBX_OK);
	assert_non_null(nv);
	assert_int_equal(fake_live(), 1);
	assert_string_equal(nvml_bus_id(nv), "0000:19:00.0");
	assert_int_equal(nvml_read(nv, &r), KBX_OK);
	assert_int_equal(r.valid, 1);
	assert_true(r.sm_mhz == 1980 && r.mem_mhz == 2619 && r.max_sm_mhz == 1980);
	assert_true(r.temp_c == 45);
	assert_true(fabs(r.power_w - 350.5) < 1e-9);
	assert_true(r.reasons == CLOCK_REASON_SW_POWER_CAP && r.reasons_valid);
	nvml_close(nv);
	assert_int_equal(fake_live(), 0);
}

static void test_fake_bus_ids(void **state)
{
	struct nvml *nv = NULL;

	(void)state;
	need_fake();
	assert_int_equal(nvml_open_library(fake_lib, "00000000:19:00.0", &nv), KBX_OK);
	nvml_close(nv);
	assert_int_equal(nvml_open_library(fake_lib, "19:00.0", &nv), KBX_OK);
	nvml_close(nv);
	assert_int_equal(nvml_open_library(fake_lib, "0000:1a:00.0", &nv), KBX_ENOTFOUND);
	assert_null(nv);
	assert_non_null(strstr(kbx_last_error(), "no device at PCI bus id '0000:1a:00.0'"));
	/* the failed open shut NVML down again */
	assert_int_equal(fake_live(), 0);
}

static void test_fake_open_failures(void **state)
{
	struct nvml *nv = NULL;

	(void)state;
	need_fake();
	setenv("FAKE_NVML_FAIL", "init", 1);
	assert_int_equal(nvml_open_library(fake_lib, "0000:19:00.0", &nv), KBX_ENODEVICE);
	assert_null(nv);
	assert_string_equal(kbx_last_error(), "nvmlInit: Driver Not Loaded");
	assert_int_equal(fake_live(), 0);
	setenv("FAKE_NVML_FAIL", "handle-perm", 1);
	assert_int_equal(nvml_open_library(fake_lib, "0000:19:00.0", &nv), KBX_ENODEVICE);
	assert_null(nv);
	assert_string_equal(kbx_last_error(),
			    "nvmlDeviceGetHandleByPciBusId on '0000:19:00.0': Insufficient Permissions");
	assert_int_equal(fake_live(), 0);
}

static void test_fake_read_failures(void **state)
{
	struct nvml *nv = NULL;
	struct clock_reading r;

	(void)state;
	need_fake();
	assert_int_equal(nvml_open_library(fake_lib, "0000:19:00.0", &nv), KBX_OK);

	setenv("FAKE_NVML_FAIL", "sm", 1);
	assert_int_equal(nvml_read(nv, &r), KBX_EIO);
	assert_int_equal(r.valid, 0);
	assert_string_equal(kbx_last_error(), "nvmlDeviceGetClockInfo (SM) on '0000:19:00.0': Insufficient Permissions");
	setenv("FAKE_NVML_FAIL", "zero-sm", 1);
	assert_int_equal(nvml_read(nv, &r), KBX_EIO);
	assert_int_equal(r.valid, 0);
	assert_true(r.sm_mhz == 0);

	/* the optional figures read as 0, and the reading is still valid */
	setenv("FAKE_NVML_FAIL", "mem,max,temp,power", 1);
	setenv("FAKE_NVML_SM", "1755", 1);
	assert_int_equal(nvml_read(nv, &r), KBX_OK);
	assert_int_equal(r.valid, 1);
	assert_true(r.sm_mhz == 1755);
	assert_true(r.mem_mhz == 0 && r.max_sm_mhz == 0 && r.temp_c == 0 && r.power_w == 0);
	assert_true(r.reasons_valid);

	/* event reasons refused: the older throttle call answers */
	setenv("FAKE_NVML_FAIL", "events", 1);
	setenv("FAKE_NVML_REASONS", "4", 1);
	setenv("FAKE_NVML_THROTTLE_REASONS", "20", 1);
	assert_int_equal(nvml_read(nv, &r), KBX_OK);
	assert_true(r.reasons == CLOCK_REASON_SW_THERMAL && r.reasons_valid);
	/* the newer call comes first when it answers */
	unsetenv("FAKE_NVML_FAIL");
	assert_int_equal(nvml_read(nv, &r), KBX_OK);
	assert_true(r.reasons == CLOCK_REASON_SW_POWER_CAP && r.reasons_valid);
	/* neither */
	setenv("FAKE_NVML_FAIL", "events,throttle", 1);
	assert_int_equal(nvml_read(nv, &r), KBX_OK);
	assert_true(r.valid && !r.reasons_valid && r.reasons == 0);

	nvml_close(nv);
	assert_int_equal(fake_live(), 0);
}

static void test_fake_old_driver(void **state)
{
	struct nvml *nv = NULL;
	struct clock_reading r;
	void *h;

	(void)state;
	need_fake();
	h = dlopen(fake_old_lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("no fake NVML '%s'", fake_old_lib);
	assert_null(dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons"));
	dlclose(h);
	setenv("FAKE_NVML_REASONS", "4", 1);
	setenv("FAKE_NVML_THROTTLE_REASONS", "48", 1);
	assert_int_equal(nvml_open_library(fake_old_lib, "0000:19:00.0", &nv), KBX_OK);
	assert_int_equal(nvml_read(nv, &r), KBX_OK);
	assert_true(r.reasons == (CLOCK_REASON_HW_SLOWDOWN | CLOCK_REASON_HW_THERMAL) && r.reasons_valid);
	nvml_close(nv);
}

/* ---- the real NVML ------------------------------------------------------------------------ */

static void test_real_device(void **state)
{
	struct gpu_info info;
	struct nvml *nv = NULL;
	struct clock_window w;
	struct clock_summary s;
	char reasons[128];
	int count = 0;
	enum kbx_status st;

	(void)state;
	if (gpu_probe(0, &info, &count)) {
		printf("no CUDA device: %s\n", kbx_last_error());
		real_skipped = 1;
		skip();
	}
	/* The driver always knows where its device sits on the bus. */
	assert_true(nvml_bus_id_ok(info.pci_bus_id));
	st = nvml_open(info.pci_bus_id, &nv);
	if (st == KBX_ENOTFOUND && strstr(kbx_last_error(), "cannot load NVML")) {
		printf("a CUDA device but no NVML: %s\n", kbx_last_error());
		real_skipped = 1;
		skip();
	}
	if (st)
		fail_msg("nvml_open '%s': %s", info.pci_bus_id, kbx_last_error());
	assert_int_equal(nvml_read(nv, &w.before), KBX_OK);
	usleep(10000);
	assert_int_equal(nvml_read(nv, &w.after), KBX_OK);
	nvml_close(nv);
	clock_window_summarize(&w, &s);
	printf("'%s' at %s: SM %.0f MHz (max %.0f), memory %.0f MHz, %.0f C, %.1f W, reasons 0x%llx '%s'\n",
	       info.name, info.pci_bus_id, w.after.sm_mhz, w.after.max_sm_mhz, w.after.mem_mhz, w.after.temp_c,
	       w.after.power_w, w.after.reasons, clock_reasons_text(w.after.reasons, reasons, sizeof(reasons)));
	assert_int_equal(s.valid, 2);
	/* An idle GPU may sit at a few hundred MHz; no GPU runs its SMs above 4 GHz. */
	assert_true(s.min_sm_mhz >= 100 && s.sm_mhz <= 4000);
	if (w.after.max_sm_mhz > 0)
		assert_true(w.after.max_sm_mhz + 1 >= w.after.sm_mhz && w.after.max_sm_mhz <= 4000);
	if (w.after.temp_c > 0)
		assert_true(w.after.temp_c >= 5 && w.after.temp_c <= 120);
	if (w.after.power_w > 0)
		assert_true(w.after.power_w <= 2000);
	assert_true(w.after.reasons_valid);
}

/* The fake libraries sit next to this program in the build tree. */
static void find_fakes(void)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(fake_lib, sizeof(fake_lib), "%s/libfakenvml.so", self);
	snprintf(fake_old_lib, sizeof(fake_old_lib), "%s/libfakenvml-old.so", self);
	/* Held open for the whole run, so its counter survives nvml_close's dlclose. */
	fake_handle = dlopen(fake_lib, RTLD_NOW | RTLD_LOCAL);
	if (!fake_handle) {
		const char *e = dlerror();

		snprintf(fake_error, sizeof(fake_error), "%s", e ? e : "?");
	}
	if (fake_handle)
		*(void **)&fake_live = dlsym(fake_handle, "fake_nvml_live");
	if (fake_handle && !fake_live) {
		snprintf(fake_error, sizeof(fake_error), "it has no 'fake_nvml_live'");
		dlclose(fake_handle);
		fake_handle = NULL;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons_text),
		cmocka_unit_test(test_reasons_slowdown),
		cmocka_unit_test(test_bus_id),
		cmocka_unit_test(test_bus_id_garbage),
		cmocka_unit_test(test_open_bad_arguments),
		cmocka_unit_test(test_open_without_library),
		cmocka_unit_test(test_read_null),
		cmocka_unit_test(test_window),
		cmocka_unit_test_setup(test_fake_read, fake_setup),
		cmocka_unit_test_setup(test_fake_bus_ids, fake_setup),
		cmocka_unit_test_setup(test_fake_open_failures, fake_setup),
		cmocka_unit_test_setup(test_fake_read_failures, fake_setup),
		cmocka_unit_test_setup(test_fake_old_driver, fake_setup),
	};
	const struct CMUnitTest device_tests[] = {
		cmocka_unit_test(test_real_device),
	};
	int rc;

	find_fakes();
	rc = cmocka_run_group_tests_name("nvml", tests, NULL, NULL);
	rc |= cmocka_run_group_tests_name("nvml on this machine's GPU", device_tests, NULL, NULL);
	if (fake_handle)
		dlclose(fake_handle);
	if (rc)
		return 1;
	if (real_skipped)
		printf("note: the readings of a real GPU need a CUDA device and NVML; skipped here\n");
	return 0;
}
