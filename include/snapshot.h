/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reading the BPF maps into a snapshot of cumulative values, and the delta
 * of two snapshots: what happened in an interval. Maps are never reset, so
 * nothing is lost between reads; only the maxima use the epoch slots.
 */
#ifndef CGS_SNAPSHOT_H
#define CGS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgsched.h"

struct tracer;

/* Every cumulative counter of a cgroup: an interval is their difference. */
struct cg_counters {
	uint64_t oncpu_ns;       /* includes the slices running at read time */
	uint64_t oncpu_count, sw_vol, sw_invol, wakeups;
	uint64_t runq_count, runq_sum_ns;
	uint64_t thr_wait_count, thr_wait_ns, thr_inh_ns; /* its tasks' throttled waits */
	uint64_t thr_count, thr_ns;                       /* episodes of its own quota */
	uint64_t runq_slots[CGS_HIST_SLOTS];
	uint64_t oncpu_slots[CGS_HIST_SLOTS];
	uint64_t thr_slots[CGS_HIST_SLOTS];
};
#define CG_NCOUNTERS (sizeof(struct cg_counters) / sizeof(uint64_t))

/* Histogram metrics (hist --metric). */
enum metric { METRIC_RUNQ, METRIC_ONCPU, METRIC_THROTTLE, METRIC__COUNT };

/* Per CPU, with the per-CPU breakdown on. */
struct cg_cpu {
	uint64_t oncpu_ns, thr_count, thr_ns;
	uint64_t slots[METRIC__COUNT][CGS_HIST_SLOTS];
};

struct cg_sample {
	uint64_t id;
	struct cg_counters c;
	uint64_t runq_max_ns, thr_max_ns;          /* in the interval the read closed */
	uint64_t runq_max_all_ns, thr_max_all_ns;  /* since attach (carried from the previous read) */
	uint64_t thr_inh_by;     /* ancestor whose quota last held its tasks (0: none) */
	struct cg_cpu *cpu;      /* [ncpus] with per_cpu, else NULL */
	struct thr_cpu { uint64_t count, ns; } *thr_cpu; /* [ncpus] once it throttled */
};

struct preempt_sample {
	uint64_t victim, preemptor, count;
};

struct snapshot {
	uint64_t t_ns;           /* monotonic read time */
	int ncpus;
	bool per_cpu;
	size_t n, cap;
	struct cg_sample *cg;    /* sorted by id */
	size_t npre, precap;
	struct preempt_sample *pre; /* sorted by (victim, preemptor) */
	uint64_t drops[CGS_DROP__COUNT];
};

/*
 * Read every map. per_cpu keeps the per-CPU breakdown too; prev (the
 * previous read, or NULL) carries the running maxima. Returns 0 or -errno.
 */
int snapshot_read(struct tracer *t, struct snapshot *s, bool per_cpu, const struct snapshot *prev);
void snapshot_free(struct snapshot *s);
const struct cg_sample *snapshot_find(const struct snapshot *s, uint64_t id);
/*
 * out = cur - prev (prev may be NULL: everything since attach); maxima are
 * cur's interval maxima, or the running ones without prev. Cgroups with no
 * activity are left out.
 */
int snapshot_delta(const struct snapshot *prev, const struct snapshot *cur, struct snapshot *out);
const uint64_t *sample_slots(const struct cg_sample *s, enum metric m);
/* Name of a drop counter for output. */
const char *drop_name(int i);
uint64_t drops_total(const uint64_t *d);

#endif
