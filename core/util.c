#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- allocation ------------------------------------------------------------------------ */

static void out_of_memory(size_t n)
{
	fprintf(stderr, "kbx: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	/* malloc(0) may return NULL; callers never want that. */
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p;

	if (count == 0 || size == 0)
		count = size = 1;
	p = calloc(count, size);
	if (!p)
		out_of_memory(count > SIZE_MAX / size ? SIZE_MAX : count * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		out_of_memory(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p;

	if (len == SIZE_MAX)
		out_of_memory(len);
	p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static char *xvasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *p;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0) {
		/* Only an invalid format or a wide-character conversion failure gets here. */
		fprintf(stderr, "kbx: cannot format '%s'\n", fmt);
		abort();
	}
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

/* ---- sbuf ------------------------------------------------------------------------------ */

static void sbuf_grow(struct sbuf *sb, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - sb->len - 1)
		out_of_memory(SIZE_MAX);
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return;
	XGROW(sb->buf, need, sb->cap);
}

void sbuf_add(struct sbuf *sb, const char *s, size_t n)
{
	sbuf_grow(sb, n);
	if (n)
		memmove(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* Try in the spare room first; most appends fit. */
	sbuf_grow(sb, 64);
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "kbx: cannot format '%s'\n", fmt);
		abort();
	}
	if ((size_t)n >= sb->cap - sb->len) {
		sbuf_grow(sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

char *sbuf_detach(struct sbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");

	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return p;
}

void sbuf_release(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

/* ---- files ----------------------------------------------------------------------------- */

enum kbx_status read_file(const char *path, char **out, size_t *len)
{
	struct sbuf sb = SBUF_INIT;
	struct stat st;
	int fd, saved;

	*out = NULL;
	if (len)
		*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kbx_error(errno == ENOENT ? KBX_ENOTFOUND : KBX_EIO, "cannot open '%s': %s", path,
				 strerror(errno));
	if (fstat(fd, &st) != 0) {
		saved = errno;
		close(fd);
		return kbx_error(KBX_EIO, "cannot read '%s': %s", path, strerror(saved));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return kbx_error(KBX_EIO, "cannot read '%s': %s", path, strerror(EISDIR));
	}
	/* Size hint only: pipes and /proc files report 0 and are read until end of file. */
	sbuf_grow(&sb, S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size : 4096);
	for (;;) {
		ssize_t n;

		if (sb.cap - sb.len < 2)
			sbuf_grow(&sb, sb.cap);
		n = read(fd, sb.buf + sb.len, sb.cap - sb.len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			saved = errno;
			close(fd);
			sbuf_release(&sb);
			return kbx_error(KBX_EIO, "cannot read '%s': %s", path, strerror(saved));
		}
		if (n == 0)
			break;
		sb.len += (size_t)n;
	}
	sb.buf[sb.len] = '\0';
	close(fd);
	if (len)
		*len = sb.len;
	*out = sbuf_detach(&sb);
	return KBX_OK;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int path_is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int path_is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_exec_file(const char *path)
{
	return path_is_file(path) && access(path, X_OK) == 0;
}

int path_find_exec(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p;

	if (!*name)
		return -1;
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return is_exec_file(out) ? 0 : -1;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin";;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);

		if ((size_t)snprintf(out, len, "%.*s/%s", n ? (int)n : 1, n ? p : ".", name) < len && is_exec_file(out))
			return 0;
		if (!colon)
			break;
		p = colon + 1;
	}
	return -1;
}

enum kbx_status make_dirs(const char *dir, unsigned mode)
{
	char *d = xstrdup(dir);
	enum kbx_status st = KBX_OK;
	struct stat sb;

	for (char *p = d + 1; *d; p++) {
		char c;

		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(d, (mode_t)mode) != 0 && errno != EEXIST) {
			st = kbx_error(KBX_EIO, "cannot create folder '%s': %s", d, strerror(errno));
			break;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	if (st == KBX_OK && (stat(d, &sb) != 0 || !S_ISDIR(sb.st_mode)))
		st = kbx_error(KBX_EIO, "'%s' is not a folder", d);
	free(d);
	return st;
}

enum kbx_status write_file(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	mode_t mask;
	int fd, saved;

	fd = mkstemp(tmp);
	if (fd < 0) {
		saved = errno;
		free(tmp);
		return kbx_error(KBX_EIO, "cannot write '%s': %s", path, strerror(saved));
	}
	/* mkstemp creates 0600; give the file the mode a plain creat() would have. umask() can only
	 * be read by setting it, so set it back at once. */
	mask = umask(022);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		saved = errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return kbx_error(KBX_EIO, "cannot write '%s': %s", path, strerror(saved));
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		saved = errno;
		unlink(tmp);
		free(tmp);
		return kbx_error(KBX_EIO, "cannot write '%s': %s", path, strerror(saved));
	}
	free(tmp);
	return KBX_OK;
}

/* ---- strings --------------------------------------------------------------------------- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

char *str_trim(char *s)
{
	size_t start = 0, end = strlen(s);

	while (start < end && is_space(s[start]))
		start++;
	while (end > start && is_space(s[end - 1]))
		end--;
	memmove(s, s + start, end - start);
	s[end - start] = '\0';
	return s;
}

int str_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- SHA-256 (FIPS 180-4) -------------------------------------------------------------- */

struct sha256 {
	uint32_t h[8];
	uint8_t block[64];
	size_t used;
	uint64_t total;
};

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror32(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
		       (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) +
			      sha256_k[i] + w[i];
		uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha256_update(struct sha256 *s, const uint8_t *p, size_t n)
{
	s->total += n;
	while (n > 0) {
		size_t take = 64 - s->used;

		if (take > n)
			take = n;
		memcpy(s->block + s->used, p, take);
		s->used += take;
		p += take;
		n -= take;
		if (s->used == 64) {
			sha256_block(s, s->block);
			s->used = 0;
		}
	}
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	struct sha256 s = { .h = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c,
				   0x1f83d9ab, 0x5be0cd19 } };
	uint8_t pad[72] = { 0x80 };
	uint64_t bits;
	size_t padlen;
	int i;

	sha256_update(&s, data, len);
	bits = s.total * 8;
	/* 0x80, zeros up to 56 mod 64, then the message length in bits, big-endian. */
	padlen = (s.used < 56 ? 56 - s.used : 120 - s.used);
	for (i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(&s, pad, padlen + 8);
	for (i = 0; i < 32; i++) {
		uint8_t byte = (uint8_t)(s.h[i / 4] >> (24 - 8 * (i % 4)));

		out[2 * i] = hex[byte >> 4];
		out[2 * i + 1] = hex[byte & 15];
	}
	out[64] = '\0';
}

/* ---- misc ------------------------------------------------------------------------------ */

uint64_t hash64(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- threads ---- */

#define PARALLEL_MAX_THREADS 16

struct range_job {
	void (*fn)(void *arg, size_t lo, size_t hi);
	void *arg;
	size_t lo, hi;
};

static void *range_main(void *p)
{
	struct range_job *job = p;

	job->fn(job->arg, job->lo, job->hi);
	return NULL;
}

int parallel_width(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	return ncpu < 1 ? 1 : ncpu > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : (int)ncpu;
}

void parallel_for(size_t n, size_t min_chunk, void (*fn)(void *arg, size_t lo, size_t hi), void *arg)
{
	struct range_job jobs[PARALLEL_MAX_THREADS];
	pthread_t tids[PARALLEL_MAX_THREADS];
	int started[PARALLEL_MAX_THREADS];
	size_t nt = (size_t)parallel_width(), t;

	if (min_chunk == 0)
		min_chunk = 1;
	if (nt > n / min_chunk)
		nt = n / min_chunk;
	if (nt <= 1) {
		fn(arg, 0, n);
		return;
	}
	for (t = 0; t < nt; t++) {
		jobs[t].fn = fn;
		jobs[t].arg = arg;
		jobs[t].lo = n / nt * t;
		jobs[t].hi = t + 1 == nt ? n : n / nt * (t + 1);
	}
	for (t = 1; t < nt; t++)
		started[t] = pthread_create(&tids[t], NULL, range_main, &jobs[t]) == 0;
	range_main(&jobs[0]);
	for (t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(tids[t], NULL);
		else
			range_main(&jobs[t]);
	}
}
