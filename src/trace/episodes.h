/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The throttle episodes and long waits from the ring buffers, and the episodes still open (episodes.c). */
#ifndef CGS_EPISODES_H
#define CGS_EPISODES_H

#include "trace/tracer_state.h"

/* Open the ring buffers (the waits' only with long_wait_ns); without them, warn and go on. */
void episodes_open(struct tracer *t, uint64_t long_wait_ns);
/* Free the ring buffers, the log and the tap. */
void episodes_close(struct tracer *t);
/* Wait up to timeout_ms for episodes (collecting them); returns early on a signal. */
void tracer_poll(struct tracer *t, int timeout_ms);
/*
 * The same, but return at once when fd (>= 0) is readable. With a pidfd,
 * the command's exit ends the wait, not the timeout. So record's window
 * ends when the command does, not up to one poll later.
 */
void tracer_poll_fd(struct tracer *t, int fd, int timeout_ms);
/* For commands that list no episodes: empty the list (it would fill, then count truncations). */
void tracer_discard_episodes(struct tracer *t);
/* Have tap see every episode and long wait from now (after tracer_start). */
void tracer_set_tap(struct tracer *t, const struct tracer_tap *tap);
/* Hand over the episodes collected so far (the caller frees log->e) and start a new log. */
void tracer_take_episodes(struct tracer *t, struct episode_log *out);
/*
 * Return the throttle episodes of cgroup cgid still open (after
 * tracer_detach: open at the detach), each from its start to now (ktime).
 * *out is malloc'd and the caller frees it; *n is the count. The fentry
 * and kprobe backends hold each throttle's start until its unthrottle.
 * The tracepoint backend sees an end only at a later switch, so its open
 * entries may be over; it returns none. Returns 0 or -ENOMEM.
 */
int tracer_open_episodes(struct tracer *t, uint64_t cgid, uint64_t now, struct cgs_episode **out, size_t *n);
/*
 * Fill p (its array is reused) with the cgroups whose throttle episode is
 * not in the log yet. With fentry and kprobe, such an episode is open.
 * With the tracepoint backend, it is not yet seen over; a later switch
 * sees it. The ring buffer is read after the walk, so every episode is
 * either in the log (and the tap) or here. A run of throttled periods must
 * not be closed while its cgroup has a pending episode: an episode held
 * over refills arrives only at its end (report/periods.h
 * period_track_close). Returns 0, or -ENOMEM with p empty.
 */
int tracer_pending(struct tracer *t, struct cg_pending *p);
bool cg_pending_has(const struct cg_pending *p, uint64_t id);
void cg_pending_free(struct cg_pending *p);

#endif
