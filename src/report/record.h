/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The record report: one traced cgroup and its descendants, summed, with the
 * kernel's cpu.stat deltas and the command's exit. Schema "cgsched/record"
 * version 2 (docs/json.md); check reads it back.
 */
#ifndef CGS_RECORD_H
#define CGS_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "figures/kstat.h"
#include "limits/cpu_limits.h"
#include "report/json_out.h"
#include "report/report.h"

#define CGS_RECORD_SCHEMA "cgsched/record"
#define CGS_RECORD_VERSION 2

/* One run's figures, of those record --repeat keeps of every run (and check compares). */
struct record_fig {
	uint64_t wall_ns, oncpu_ns, runq_p50_ns, runq_p99_ns, thr_ns;
	double cpu_pct, thr_pct;
	/* The kernel's own count of the run's on-CPU time (kernel_stat.oncpu_ns), its spread; not summarised. */
	bool k_oncpu;
	uint64_t k_oncpu_ns, k_oncpu_spread_ns;
};

/* The figures of record --repeat's measured runs (the warm-ups are not kept). */
struct record_repeat {
	size_t n, warmup;
	double conf;                /* of the medians' intervals */
	struct record_fig *runs;
};

struct record_summary {
	struct trace_info ti;       /* where and how */
	char *const *argv;          /* the command, NULL-terminated; NULL with --attach */
	const char *cgroup;         /* traced cgroup, relative to the hierarchy */
	bool attached;              /* an existing cgroup (--attach), not one we made */
	struct cpu_limits limits;   /* as applied (none with --attach) */
	double start_time;          /* seconds since the Unix epoch */
	uint64_t wall_ns;
	int exit_status, exit_signal; /* -1 when not applicable */
	/* the subtree, summed */
	struct cg_counters c;
	uint64_t runq_max_ns, thr_max_ns;
	uint64_t thr_wall_ns;       /* throttled time on the CPU where it was longest (a lower bound) */
	int npre;
	struct preemptor pre[REPORT_TOP_PREEMPTORS];
	/* the kernel's account of the traced cgroup over the run */
	struct kstat k;             /* configuration */
	bool k_ok;
	uint64_t k_periods, k_throttled, k_throttled_ns;
	uint64_t k_bursts, k_burst_ns;  /* where k.has_bursts */
	/* the kernel's CPU time of the subtree over the same window (figures/kusage.h); source NULL: none */
	const char *k_oncpu_source;
	uint64_t k_oncpu_ns;
	unsigned k_oncpu_moved;     /* schedstat: threads that came or went, whose time is missing */
	uint64_t k_oncpu_spread_ns; /* how far the kernel's count moved while cgsched read: k_oncpu_ns is its middle */
	uint64_t drops[CGS_DROP__COUNT];
	const struct report *rows;  /* per cgroup, for the "cgroups" array; may be NULL */
	/* --why (record_why): the subtree's waits split into causes; the kernel's PSI over the run */
	bool why_on;
	struct why why;
	struct episode_view ep;     /* throttle episodes, from the start of the run */
	struct period_stats per;    /* its own quota's throttling period by period (record_periods) */
	/*
	 * Episodes of its own quota still open at the end, each cut there.
	 * They count in the periods, because the kernel counts a refill that
	 * finds the group throttled at once. They do not count in the episode
	 * counts and time, which the kernel updates at an episode's end.
	 */
	const struct cgs_episode *open;
	size_t nopen;
	const struct demand_series *demand; /* its CPU demand period by period; NULL: none read */
	const struct record_repeat *repeat; /* record --repeat: every run's figures; NULL: one run */
};

/* The figures a run keeps for --repeat, after record_aggregate. */
void record_fig_of(const struct record_summary *rs, struct record_fig *f);
/* record --repeat's summary: a median, its interval, min and max for each figure, on f. */
void record_repeat_print(FILE *f, const struct record_repeat *rep);

/*
 * Compute the traced cgroup's (id) throttling period by period over the
 * run, from rs->ep, rs->open and its quota's period grid (period_end_ns,
 * figures/kstat.h; 0: unknown). Call after record_aggregate. 0 or -ENOMEM.
 */
int record_periods(struct record_summary *rs, uint64_t id, uint64_t period_end_ns);

/*
 * --why, after record_aggregate and report_why on r: the subtree's causes.
 * A wait behind another cgroup of the subtree counts as behind its own
 * tasks. A throttle by a quota inside the subtree counts as its own quota.
 */
struct cgfs;
void record_why(struct record_summary *rs, const struct report *r, struct cgfs *fs);
/* Sum a report's rows into rs (counters, maxima, preemptors from outside the subtree). */
void record_aggregate(struct record_summary *rs, const struct report *r);
double record_cpu_pct(const struct record_summary *rs);
/* Wall time with at least one CPU throttled (the union of episodes over time). */
uint64_t record_thr_wall_ns(const struct record_summary *rs);
/* The length of the union of the episodes' [start, end) intervals. */
uint64_t episodes_union_ns(const struct cgs_episode *e, size_t n);
double record_thr_pct(const struct record_summary *rs);
/* The report (schema cgsched/record, docs/json.md) as one value where w stands. */
void record_json(struct jw *w, const struct record_summary *rs);
/* The same as pretty text (two spaces a level), malloc'd, *len its length; NULL: out of memory. */
char *record_json_text(const struct record_summary *rs, size_t *len);
/* The text summary and histograms, perf-stat style. */
void record_print(FILE *f, const struct record_summary *rs);

#endif
