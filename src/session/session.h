/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What every tracing command sets up: cgroupfs, --cgroup filters, the tracer, signals. */
#ifndef CGS_SESSION_H
#define CGS_SESSION_H

#include <signal.h>

#include "kernel/cgroupfs.h"
#include "report/json_out.h"
#include "lib/priority.h"
#include "lib/stop.h"
#include "figures/snapshot.h"
#include "trace/tracer.h"

struct session_opts {
	const char **cgroups;  /* --cgroup paths, as given */
	int ncgroups;
	struct trace_cfg tc;   /* what to trace, and how: passed to the tracer as it is */
	struct cgs_priority priority; /* --priority: this process's threads */
	/*
	 * If set, called right before the baseline read (after false) and
	 * right after it (true). record reads the kernel's own count there, so
	 * the two reads bracket the baseline (cmd_record.c read_kusage).
	 */
	void (*around_base)(void *ctx, bool after);
	void *around_ctx;
};

struct session {
	struct cgfs fs;
	struct tracer tr;
	struct scx_state scx; /* sched_ext's state when the session began */
	/*
	 * The maps as they were when the window began, after every CPU was
	 * told what it runs. Each command's first interval and its summary
	 * count from this read, never from the stragglers of the attach.
	 */
	struct snapshot base;
	uint64_t filter_ids[CGS_MAX_FILTERS];
	char *filter_paths[CGS_MAX_FILTERS];
	int nfilter;
	/* Called in every wait (top --demand's reads): returns the ms it can wait at most. NULL: none. */
	int (*tick)(void *ctx, uint64_t now);
	void *tick_ctx;
	uint64_t trimmed_ns;  /* the heap's free pages last given back (session_wait_input) */
};

/*
 * Returns 0, or CGS_EXIT_USAGE after printing why. If a stop signal came
 * during start-up, returns session_stopped()'s status with nothing
 * attached. A failed open has cleaned up after itself: call session_close
 * only after one that returned 0.
 */
int session_open(struct session *s, const struct session_opts *o);
/* Says a stop signal ended start-up; returns 128 + the signal. */
int session_stopped(void);
void session_close(struct session *s);
struct json_meta;
/* The JSON header fields that describe this session; kind is "interval" or "summary". */
void session_json_meta(const struct session *s, const char *kind, struct json_meta *m);
/*
 * The session in one phrase, for every command's banner: "cgroup v1 at
 * MOUNT, backend B, throttle backend T" and, with sched_ext, its state.
 */
const char *session_describe(const struct session *s, char *buf, size_t n);
/* The kernel, cgroup version, backends and CPUs of this session, for a report's header. */
void session_trace_info(const struct session *s, struct trace_info *ti);
/* A cgroup's path by id (cached), or NULL when gone: for json_episodes. */
const char *session_cgroup_name(void *session, uint64_t id);
/* Sleep until deadline (monotonic ns) or a stop signal, collecting episodes; false when stopped. */
bool session_sleep_until(struct session *s, uint64_t deadline_ns);
/*
 * The same, but input on fd also wakes it (a key on top's screen). Returns
 * 1 if fd has input, 0 at the deadline, -1 when asked to stop. With an fd,
 * the tracer's events are taken at least every 100 ms meanwhile. With
 * fd < 0, the tracer's own poll is the wait (session_sleep_until).
 */
int session_wait_input(struct session *s, uint64_t deadline_ns, int fd);

#endif
