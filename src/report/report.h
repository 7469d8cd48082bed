/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* From an interval's delta to rows a person or a program reads. */
#ifndef CGS_REPORT_H
#define CGS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "figures/kstat.h"
#include "figures/snapshot.h"
#include "report/periods.h"
#include "report/why.h"

struct cgfs;
struct cgname;
struct idtab;

#define REPORT_TOP_PREEMPTORS 5

struct preemptor {
	uint64_t id, count;
	const char *path;     /* NULL when the cgroup is gone */
	const struct cgname *who; /* what its path says (NULL: nothing) */
};

/*
 * Count `count` for preemptor id in pre[0..*n), the REPORT_TOP_PREEMPTORS
 * largest kept, most first; an id already there adds up.
 */
void preemptors_add(struct preemptor *pre, int *n, uint64_t id, uint64_t count, const char *path);

struct row {
	uint64_t id;
	const char *path;     /* relative to the hierarchy; last known when removed */
	bool removed;
	bool resolved;        /* path, removed and the paths below looked up (report_resolve) */
	const struct cgname *who; /* unit, container, pod read from the path; NULL: nothing */
	uint32_t members;     /* top --group-by: a group of this many cgroups (report/group.h); 0: one cgroup */
	const struct cg_sample *s;
	double cpu_pct;       /* on-CPU time / interval, 100 = one CPU */
	double runq_p50_ns, runq_p99_ns;
	uint64_t runq_max_ns;
	int npre;
	struct preemptor pre[REPORT_TOP_PREEMPTORS];
	/* Throttling by its own quota (episodes), and of its tasks by an ancestor's. */
	double thr_pct;       /* episode time / interval (summed over CPUs, as cpu.stat) */
	double thr_p99_ns;
	uint64_t thr_max_ns;
	double inh_pct;       /* its tasks' waits while an ancestor was throttled */
	const char *inh_path; /* that ancestor */
	const struct cgname *inh_who;
	/* The kernel's account: configuration now, counters over the interval. */
	struct kstat k;
	uint64_t k_periods, k_throttled, k_throttled_ns;
	uint64_t k_bursts, k_burst_ns; /* periods that ran into the burst, and the time run on it (k.has_bursts) */
	double quota_used_pct; /* < 0: unlimited or unknown */
	/* Its throttling period by period (report_periods); known false: not asked for, or no grid. */
	struct period_stats per;
	/* top --demand: its demand per period over the interval (session/demand_top.h); known false: none */
	struct demand_stats dem;
	/* --why (report_why): what its waits were spent behind; NULL: not asked for */
	struct why *why;
};

enum sort_key { SORT_CPU, SORT_P50, SORT_P99, SORT_MAX, SORT_WAKEUPS, SORT_VOL, SORT_INVOL,
		SORT_THR, SORT_PATH };

struct report {
	uint64_t interval_ns;
	const struct snapshot *d;  /* the delta rows point into */
	bool hist_ms;
	const char *group_by; /* rows summed by "unit", "container" or "pod"; NULL: one per cgroup */
	size_t n, cap;
	struct row *rows;
	struct row *spare;    /* report_sort's second array (cap rows), kept for the next refresh */
};

/* Parse a -s value ("cpu", "p50", "p99", "max", "wakeups", "vol", "invol", "thr", "path"). */
int sort_key_parse(const char *s, enum sort_key *k);
/*
 * Build a row for every cgroup in d, without paths yet (report_resolve
 * adds them). Rows get the kernel's figures where kfigs has them (id ->
 * struct kstat_fig, from kstat_src_figures; NULL: none). It reads nothing
 * else, so the result depends only on its inputs. Returns 0 or -ENOMEM.
 */
int report_build(struct report *r, const struct snapshot *d, uint64_t interval_ns, bool hist_ms,
		 const struct idtab *kfigs);
/* The same into r, zeroed or built before: its rows' array reused (snapshot_take's reason). */
int report_rebuild(struct report *r, const struct snapshot *d, uint64_t interval_ns, bool hist_ms,
		   const struct idtab *kfigs);
/* --why: split every row's waits into causes (report/why.h); before report_sort. 0, -ENOMEM, or -EINVAL for sorted rows. */
int report_why(struct report *r);
/* Look up the paths and names of the cgroups a why's parts name. */
void why_resolve(struct why *w, struct cgfs *fs);

/*
 * Compute each limited row's throttling period by period (report/periods.h)
 * from the throttle episodes e[0..n) of the rows' window. The window is
 * the interval, or the time since start for a summary. 0 or -ENOMEM.
 */
int report_periods(struct report *r, const struct cgs_episode *e, size_t n);
/* Sort the rows by k; with first > 0 only the first `first` need be in order. */
void report_sort(struct report *r, struct cgfs *fs, enum sort_key k, size_t first);
/*
 * Look up the paths of the first `limit` rows (0: all): the row's own,
 * with one stat to notice removal, its preemptors', and the ancestor that
 * throttles it. Only rows that are shown need paths, since a stat per row
 * adds up with thousands of rows.
 */
void report_resolve(struct report *r, struct cgfs *fs, size_t limit);
void report_free(struct report *r);
/* Display name: path, "path (removed)", or "(removed, id N)". */
const char *row_name(const struct row *w, char *buf, size_t len);
/* Who a row belongs to for text ("pod <uid>/<id12>", escaped), or NULL. */
const char *row_who(const struct row *w, char *buf, size_t len);
/* For a column of width: long paths keep their tail, the part that tells cgroups apart ("..b/c"). */
const char *clip(const char *s, char *buf, size_t width);
/* Names keep their head, the kind and the start of the id ("pod 3f0c.."). */
const char *clip_end(const char *s, char *buf, size_t width);
/* The `top` table: column titles, `limit` rows (0: all). */
void report_table(FILE *f, const struct report *r, size_t limit);
/* One sentence per throttled cgroup: periods, quota used, who held it. */
void report_throttle_lines(FILE *f, const struct report *r);
/* --why: each row's verdict and pressure lines (report/why.h), in row order. */
void report_why_lines(FILE *f, const struct report *r);
/* One line naming every nonzero drop counter, or "drops: none". */
void report_drops(FILE *f, const uint64_t *drops);

#endif
