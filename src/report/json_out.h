/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Machine output in the schema "cgsched/top" (docs/json.md): one object
 * per line. Each is written as it is made (lib/json_writer.h), and matches
 * json-c's text to the byte.
 */
#ifndef CGS_JSON_OUT_H
#define CGS_JSON_OUT_H

#include <stdio.h>

#include "kernel/sched_ext.h"
#include "lib/json_writer.h"
#include "report/report.h"
#include "report/tasks_out.h"

#define CGS_JSON_VERSION 4

/* How the figures were gathered: what every report's header says. */
struct trace_info {
	char kernel[65];        /* the release (uname -r) */
	int cgroup_version;
	const char *sched_backend, *thr_backend, *task_state;
	int ncpus;
	struct scx_state scx;
};

/* Throttle episodes to list, start relative to base_ns; name(ctx, id) gives a path or NULL. */
struct episode_view {
	const struct cgs_episode *e;
	size_t n;
	uint64_t truncated, base_ns;
	const char *(*name)(void *ctx, uint64_t id);
	void *name_ctx;
};

struct json_meta {
	const char *kind;       /* "interval" or "summary" */
	struct trace_info ti;
	double realtime;        /* seconds since the epoch, at the end of the window */
	unsigned long long map_bytes;
	/* Episodes that ended in the window (none and none truncated: the key is left out). */
	struct episode_view ep;
};

/*
 * One report as one line of JSON on f (then flushed), written as it is
 * made; tasks: the per-task rows too (NULL: none).
 */
void json_report(FILE *f, const struct report *r, const struct json_meta *m, const struct task_report *tasks);
/*
 * Pieces that the record report shares; each writes one value where the
 * writer stands. json_row writes one cgroup's row; group_by is the
 * report's, and a group row says "group": {by, cgroups}. json_hist writes
 * a histogram, and json_drops the drop counters.
 */
void json_row(struct jw *w, const struct row *r, bool ms, int ncpus, const char *group_by);
void json_hist(struct jw *w, const uint64_t *slots);
void json_drops(struct jw *w, const uint64_t *d);
/*
 * Write the counters of the list (CG_COUNTERS) that belong in the JSON
 * object `where`, as keys of the object open now, in list order. With
 * record, write only those that record's summary carries.
 */
void json_counters(struct jw *w, const struct cg_counters *c, enum cg_json where, bool record);
/* --why's "waited" object: a row's causes (report/why.h) and the counters behind them. */
void why_json(struct jw *w, const struct why *y, const struct cg_counters *c);
/* A row's (or record's) throttling period by period (report/periods.h): an object, or null where unknown. */
void json_periods(struct jw *w, const struct period_stats *p);
/* Throttle episodes as [{cgroup_id, path, cpu, start_ns, duration_ns}]. */
void json_episodes(struct jw *w, const struct episode_view *ep);
/* sched_ext's state as {state, ops, cfs_throttling_applies}; null without sched_ext. */
void json_sched_ext(struct jw *w, const struct scx_state *x);
/* The header's keys: kernel, cgroup_version, sched_backend, throttle_backend, task_state, ncpus, sched_ext. */
void json_trace_info(struct jw *w, const struct trace_info *ti);
/* [{pid, tid?, comm, cgroup_id, path, cpu_pct, oncpu_ns, wakeups, switches, runq}] */
void json_tasks(struct jw *w, const struct task_report *r, bool hist_ms);
/* What the path says of a cgroup (lib/cgname.h) as {kind, unit, runtime, container_id, pod_uid, qos}; null for NULL. */
struct cgname;
void json_who(struct jw *w, const struct cgname *n);

#endif
