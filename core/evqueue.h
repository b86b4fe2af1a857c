/*
 * evqueue.h - a run's events handed from one thread to another as typed structs.
 *
 * The explorer runs worker_run (worker.h, blocking) on a thread of its own while its event loop
 * keeps the screen alive. The worker's JSON lines are decoded once, in worker_run; the queue
 * carries what the decoder made to the loop's thread as struct run_event values (events.h),
 * never as text again.
 *
 *     struct evqueue *q = evqueue_new();
 *     struct run_events ev = evqueue_events(q);
 *
 *     producer thread:  worker_run(exe, &req, &ev, ...); evqueue_close(q);
 *     consumer thread:  poll evqueue_fd(q) for reading beside its other files, then
 *                       if (evqueue_pump(q, &listeners)) ... the run is over (join the producer)
 *     once both are done: evqueue_free(q);
 *
 * One producer thread and one consumer thread. The producer's callbacks never block on the
 * consumer (the queue grows instead), so a slow screen never holds up worker_run's watchdog.
 *
 * Ownership: each producer callback deep-copies what it is given into a new run_event
 * (run_event_new_*) and appends it under the queue's lock; from then on the queue owns it.
 * evqueue_pop takes the oldest event out and gives it to the caller, who frees it with
 * run_event_free; evqueue_pump dispatches each event, oldest first, to the consumer's
 * run_events (lending its structs for the duration of the call only) and frees it. Events
 * still queued when the queue is freed are freed with it.
 */
#ifndef KBX_EVQUEUE_H
#define KBX_EVQUEUE_H

#include "events.h"

struct evqueue;

/* NULL and a message (kbx_last_error) when its wake-up pipe cannot be made. */
struct evqueue *evqueue_new(void);
/* The producer's side: events that are queued (ctx = q). */
struct run_events evqueue_events(struct evqueue *q);
/* The producer is done: no event follows. Call once, from the producer. */
void evqueue_close(struct evqueue *q);

/* The consumer's side: readable when there may be events to take, or once the queue is
 * closed; -1 after evqueue_pump has reported the end. */
int evqueue_fd(const struct evqueue *q);
/* The oldest event, taken out of the queue (the caller frees it with run_event_free), or NULL
 * when none is waiting. Never blocks. */
struct run_event *evqueue_pop(struct evqueue *q);
/* Dispatch every waiting event to `to` (NULL: drop them), oldest first, freeing each. Returns 1
 * once the queue is closed and empty (every event has been dispatched), else 0. Never blocks. */
int evqueue_pump(struct evqueue *q, const struct run_events *to);
/* Whether the producer has closed the queue. */
int evqueue_closed(struct evqueue *q);

/* Free the queue and the events still in it. The producer must be done with it. NULL is fine. */
void evqueue_free(struct evqueue *q);

#endif
