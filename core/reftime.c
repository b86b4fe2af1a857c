#include "reftime.h"

#include <math.h>
#include <stdio.h>

#include "bench.h"
#include "util.h"

void reftime_method(const struct bench_options *o, char *out, size_t n)
{
	snprintf(out, n, "%s warmup=%g rep=%g max_rep=%d rsd=%g min_samples=%d min_ms=%g max_ms=%g hide=%d",
		 bench_mode_name(o->mode), o->warmup_ms, o->rep_ms, o->max_rep, o->rsd_target, o->min_samples,
		 o->min_ms, o->max_ms, o->hide_latency);
}

void reftime_key(const struct reftime_id *id, char out[65])
{
	struct sbuf sb = SBUF_INIT;

	/* one field per line, each named: no two ids give the same text */
	sbuf_addf(&sb, "reftime 1\nuuid %s\nname %s\ndriver %d\nkbx %s\ntask %s\nref %s\nrow %d\nsize %s\nseed %llu\n"
		    "method %s\n", id->gpu_uuid ? id->gpu_uuid : "", id->gpu_name ? id->gpu_name : "",
		    id->driver_version, id->kbx_version ? id->kbx_version : "", id->task_id ? id->task_id : "",
		    id->ref_image_hash ? id->ref_image_hash : "", id->row, id->input_size ? id->input_size : "",
		    id->seed, id->method ? id->method : "");
	sha256_hex(sb.buf, sb.len, out);
	sbuf_release(&sb);
}

static int clock_differs(double then, double now)
{
	return !(then > 0 && now > 0) || fabs(now - then) > REFTIME_CLOCK_SLACK * then;
}

int reftime_usable(const struct ref_timing *kept, const struct clock_summary *now, double now_s, double max_age_s,
		   char *why, size_t whylen)
{
	double age = now_s - kept->measured_at;

	if (!(kept->s.n > 0) || !(kept->s.median > 0)) {
		snprintf(why, whylen, "the kept timing has no samples");
		return 0;
	}
	if (age < -60 || age > max_age_s) {
		char a[32], m[32];

		reftime_age_text(fabs(age), a, sizeof(a));
		reftime_age_text(max_age_s, m, sizeof(m));
		snprintf(why, whylen, "the kept timing is %s %s (kept for %s)", a, age < 0 ? "in the future" : "old", m);
		return 0;
	}
	if (!now || !now->valid || !kept->clocks.valid) {
		snprintf(why, whylen, "no clock readings to tell whether the GPU runs as it did then");
		return 0;
	}
	if (clock_differs(kept->clocks.sm_mhz, now->sm_mhz) || clock_differs(kept->clocks.mem_mhz, now->mem_mhz)) {
		snprintf(why, whylen, "the clocks differ (SM %.0f MHz then, %.0f now; memory %.0f then, %.0f now)",
			 kept->clocks.sm_mhz, now->sm_mhz, kept->clocks.mem_mhz, now->mem_mhz);
		return 0;
	}
	return 1;
}

void reftime_age_text(double seconds, char *out, size_t n)
{
	long s = seconds > 0 ? lround(seconds) : 0;

	if (s < 60)
		snprintf(out, n, "%ld s", s);
	else if (s < 3600)
		snprintf(out, n, "%ld min", s / 60);
	else if (s < 86400)
		snprintf(out, n, "%ld h %ld min", s / 3600, s / 60 % 60);
	else
		snprintf(out, n, "%ld d %ld h", s / 86400, s / 3600 % 24);
}
