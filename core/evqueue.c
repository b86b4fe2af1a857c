/*
 * evqueue.c - typed events from a producer thread to a consumer thread.
 *
 * A list under a mutex, and a pipe whose only use is to wake the consumer's poll(): the
 * producer writes a byte when it appends to an empty list, the consumer empties the pipe before
 * it takes the list, so that no event can arrive unannounced. Closing the pipe's write end is
 * the end of the run, as end of file.
 */
#include "evqueue.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

struct evqueue {
	pthread_mutex_t lock;
	struct run_event *head, *tail;  /* under lock */
	int closed;                     /* under lock */
	int rfd, wfd;                   /* wfd: the producer's, -1 once closed */
	int ended;                      /* the consumer's: the end was reported */
};

struct evqueue *evqueue_new(void)
{
	struct evqueue *q = xcalloc(1, sizeof(*q));
	int fds[2];

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
		kbx_error(KBX_EWORKER, "cannot create a pipe for the run's events: %s", strerror(errno));
		free(q);
		return NULL;
	}
	q->rfd = fds[0];
	q->wfd = fds[1];
	pthread_mutex_init(&q->lock, NULL);
	return q;
}

static void wake(struct evqueue *q)
{
	ssize_t n;

	/* a full pipe already wakes the consumer: EAGAIN loses nothing */
	do
		n = write(q->wfd, "", 1);
	while (n < 0 && errno == EINTR);
}

static void push(struct evqueue *q, struct run_event *e)
{
	int was_empty;

	e->next = NULL;
	pthread_mutex_lock(&q->lock);
	was_empty = !q->head;
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	pthread_mutex_unlock(&q->lock);
	if (was_empty)
		wake(q);
}

static void q_phase(void *ctx, const char *what, double limit_s)
{
	push(ctx, run_event_new_phase(what, limit_s));
}

static void q_compile(void *ctx, const struct compile_result *c)
{
	push(ctx, run_event_new_compile(c));
}

static void q_case(void *ctx, const struct case_result *c)
{
	push(ctx, run_event_new_case(c));
}

static void q_perf(void *ctx, const struct perf_result *p)
{
	push(ctx, run_event_new_perf(p));
}

static void q_log(void *ctx, const char *text)
{
	push(ctx, run_event_new_log(text));
}

static void q_done(void *ctx, const struct run_summary *s)
{
	push(ctx, run_event_new_done(s));
}

struct run_events evqueue_events(struct evqueue *q)
{
	return (struct run_events){
		.ctx = q,
		.phase = q_phase,
		.compile = q_compile,
		.case_done = q_case,
		.perf_row = q_perf,
		.log = q_log,
		.done = q_done,
	};
}

void evqueue_close(struct evqueue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = 1;
	pthread_mutex_unlock(&q->lock);
	/* end of file is what wakes the consumer for the last time */
	if (q->wfd >= 0)
		close(q->wfd);
	q->wfd = -1;
}

int evqueue_closed(struct evqueue *q)
{
	int c;

	pthread_mutex_lock(&q->lock);
	c = q->closed;
	pthread_mutex_unlock(&q->lock);
	return c;
}

int evqueue_fd(const struct evqueue *q)
{
	return q && !q->ended ? q->rfd : -1;
}

/* Read the wake-up bytes that are there (never waits). */
static void drain(struct evqueue *q)
{
	char buf[256];
	ssize_t n;

	do
		n = read(q->rfd, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
}

/* The whole list, taken out at once; *closed whether the producer had closed before. */
static struct run_event *take_all(struct evqueue *q, int *closed)
{
	struct run_event *all;

	/* the pipe first: whatever is appended after this announces itself again */
	drain(q);
	pthread_mutex_lock(&q->lock);
	all = q->head;
	q->head = q->tail = NULL;
	*closed = q->closed;
	pthread_mutex_unlock(&q->lock);
	return all;
}

struct run_event *evqueue_pop(struct evqueue *q)
{
	struct run_event *e;

	drain(q);
	pthread_mutex_lock(&q->lock);
	e = q->head;
	if (e) {
		q->head = e->next;
		if (!q->head)
			q->tail = NULL;
		e->next = NULL;
	}
	pthread_mutex_unlock(&q->lock);
	return e;
}

int evqueue_pump(struct evqueue *q, const struct run_events *to)
{
	struct run_event *e, *next;
	int closed;

	if (!q)
		return 1;
	/* closed is read with the list: when it was set, every event is in this list */
	e = take_all(q, &closed);
	for (; e; e = next) {
		next = e->next;
		e->next = NULL;
		if (to)
			run_event_dispatch(e, to);
		run_event_free(e);
	}
	if (closed)
		q->ended = 1;
	return closed;
}

void evqueue_free(struct evqueue *q)
{
	struct run_event *e, *next;

	if (!q)
		return;
	for (e = q->head; e; e = next) {
		next = e->next;
		run_event_free(e);
	}
	if (q->wfd >= 0)
		close(q->wfd);
	if (q->rfd >= 0)
		close(q->rfd);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
