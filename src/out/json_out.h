/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Machine output, schema "cgsched/top" (docs/json.md): one
 * object per line, built with json-c so strings are always escaped right.
 */
#ifndef CGS_JSON_OUT_H
#define CGS_JSON_OUT_H

#include <stdio.h>
#include <json-c/json.h>

#include "kernel/sched_ext.h"
#include "out/report.h"

#define CGS_JSON_VERSION 4

/*
 * Every key is a literal (or a static name) added once to its object: json-c
 * need neither copy it nor look for an earlier one. Saves a strdup and a
 * hash probe per field: 10,000 rows of --json carry ~400,000 fields.
 */
#define JADD(o, k, v) \
	json_object_object_add_ex(o, k, v, JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)
#define JU64(v) json_object_new_uint64(v)

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

struct json_object;
struct json_object *json_report(const struct report *r, const struct json_meta *m);
/* Pieces the record report shares: one cgroup's row, a histogram, the drops. */
/* group_by: the report's (a group row says "group": {by, cgroups}). */
struct json_object *json_row(const struct row *w, bool ms, int ncpus, const char *group_by);
struct json_object *json_hist(const uint64_t *slots);
struct json_object *json_drops(const uint64_t *d);
/*
 * The counters of the list (CG_COUNTERS) that sit in the JSON object
 * `where`, in list order; record: only those record's summary carries.
 */
void json_counters(struct json_object *o, const struct cg_counters *c, enum cg_json where, bool record);
/* Throttle episodes as [{cgroup_id, path, cpu, start_ns, duration_ns}]. */
struct json_object *json_episodes(const struct episode_view *ep);
/* sched_ext's state as {state, ops, cfs_throttling_applies}; NULL without sched_ext. */
struct json_object *json_sched_ext(const struct scx_state *x);
/* The header's kernel, cgroup_version, sched_backend, throttle_backend, task_state, ncpus, sched_ext. */
void json_trace_info(struct json_object *o, const struct trace_info *ti);
/* Print one object on one line and free it. */
void json_emit(FILE *f, struct json_object *o);

/* What the path says of a cgroup (lib/cgname.h) as {kind, unit, runtime, container_id, pod_uid, qos}; NULL for NULL. */
struct cgname;
struct json_object *json_who(const struct cgname *n);
/* A cgroup name as a JSON string: valid UTF-8 always (broken bytes as U+FFFD); NULL for NULL. */
struct json_object *json_name(const char *path);

#endif
