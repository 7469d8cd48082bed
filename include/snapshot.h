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

/* One cgroup, summed over CPUs. */
struct cg_sample {
	uint64_t id;
	uint64_t oncpu_ns;       /* includes the slice running at read time */
	uint64_t sw_vol, sw_invol, wakeups;
	uint64_t runq_count, runq_sum_ns;
	uint64_t runq_max_ns;    /* in the interval the read closed */
	uint64_t runq_max_all_ns; /* since attach (carried from the previous read) */
	uint64_t runq_slots[CGS_HIST_SLOTS];
	uint64_t *cpu_slots;     /* [ncpus][CGS_HIST_SLOTS] with per_cpu, else NULL */
	uint64_t *cpu_oncpu_ns;  /* [ncpus] with per_cpu, else NULL */
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
 * out = cur - prev (prev may be NULL or empty: everything since attach);
 * maxima are cur's interval maxima. Cgroups with no activity are left out.
 */
int snapshot_delta(const struct snapshot *prev, const struct snapshot *cur, struct snapshot *out);
/* Name of a drop counter for output. */
const char *drop_name(int i);
uint64_t drops_total(const uint64_t *d);

#endif
