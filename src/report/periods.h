/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Throttling period by period. The input is a cgroup's throttle episodes
 * and its period grid: the times at which its CFS period timer expires
 * (figures/kstat.h). The output says in which periods the cgroup was
 * throttled, and the longest run of them in a row. It says how far into a
 * period the quota ran out. It counts the throttled periods in which the
 * average use stayed under half the quota: bursts outran the quota, which
 * was not too small on average. Pure: episodes and figures in, stats out.
 */
#ifndef CGS_PERIODS_H
#define CGS_PERIODS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgsched.h"

struct period_stats {
	bool known;              /* a quota and its period grid were known: the rest is set */
	uint64_t throttled;      /* periods it was throttled in (periods.c span: as nr_throttled counts them) */
	uint64_t longest_run;    /* the most of them in a row (inside the window) */
	uint64_t ran_out_p50_ns; /* from a throttled period's start to its first episode: median */
	uint64_t ran_out_p99_ns; /* ... and 99th percentile (nearest rank) */
	uint64_t underused;      /* throttled periods in a window whose average use was under half the quota */
};

/* An episode with throttled time (not CGS_EP_NO_TIME's, which count in the periods only). */
static inline bool episode_timed(const struct cgs_episode *e)
{
	return !(e->flags & CGS_EP_NO_TIME);
}

/* What periods_of needs of a cgroup besides its episodes. */
struct period_input {
	uint64_t id;             /* the cgroup: episodes of others are skipped */
	uint64_t period_ns;      /* its period */
	uint64_t quota_ns;       /* its quota per period */
	uint64_t end_ns;         /* an end of one of its periods (ktime, as the episodes'); 0: unknown */
	uint64_t use_ns;         /* its on-CPU time over the window, summed over CPUs */
	uint64_t window_ns;      /* the window's length */
};

/*
 * Compute the period stats of cgroup in->id from the episodes e[0..n),
 * which may be of any cgroups, in any order. out->known is false if the
 * period, quota or grid is unknown. An episode counts in each period whose
 * end it spans, or else in the one it began in. A period with episodes on
 * several CPUs counts once, at its earliest. Returns 0 or -ENOMEM.
 */
int periods_of(const struct cgs_episode *e, size_t n, const struct period_input *in, struct period_stats *out);

/*
 * A cgroup's CPU demand period by period, as record collects it. Each
 * step is a tenth of a period. Steps matter because a new limit's period
 * grid may fall anywhere against the work; advise sums the steps into
 * periods at every offset. With placed (record's estimator), a step's
 * demand is its work, with work a throttle delayed counted where it would
 * have run: earlier by the task's throttled waits since its wake-up. The
 * waits are kept apart, to mark periods a throttle censored. Without
 * placed (older records), a step's demand is its use plus its waits, an
 * upper bound (docs/design.md, "Demand").
 */
#define DEMAND_STEPS 10
struct demand_series {
	uint64_t period_ns;
	uint64_t step_ns;       /* period_ns / DEMAND_STEPS */
	bool aligned;           /* on the kernel's period grid (its quota's): step 0 begins a period */
	size_t n, cap;          /* steps */
	uint32_t *used_us;      /* on-CPU time in step i, summed over CPUs */
	uint32_t *waited_us;    /* its tasks' throttled waits in step i, summed over tasks */
	uint64_t late;          /* steps lost, read too late to find (pushed as 0) */
	unsigned cpus;          /* CPUs it ran on (each with over 1 % of its time): how many may hold runtime */
	unsigned cpus_any;      /* CPUs it ran on at all; each may keep 1 ms of quota when its queue empties */
	uint64_t slice_us;      /* the kernel's bandwidth slice (sched_cfs_bandwidth_slice_us); 0: unknown */
	bool placed;            /* used_us places delayed work where it would have run; waited_us is not demand */
	uint64_t unplaced_ns;   /* waits too long to place, counted as demand (with placed) */
	uint64_t clipped_ns;    /* placed work put at the edge of the steps it may reach */
};
/* One more step. 0 or -ENOMEM. */
int demand_push(struct demand_series *d, uint64_t used_ns, uint64_t waited_ns);
void demand_free(struct demand_series *d);
static inline uint64_t demand_us(const struct demand_series *d, size_t i)
{
	return (uint64_t)d->used_us[i] + (d->placed ? 0 : d->waited_us[i]);
}
/* Whole periods from step 0 (the grid's, when aligned). */
static inline size_t demand_periods(const struct demand_series *d)
{
	size_t k = d->step_ns ? d->period_ns / d->step_ns : 1;
	return k ? d->n / k : 0;
}
/* The pct-th percentile of demand per period, periods from step 0 (nearest rank); 0 if none. */
uint64_t demand_quantile_us(const struct demand_series *d, unsigned pct);

/* The distribution of a cgroup's demand per period over an interval (top --demand). */
struct demand_stats {
	bool known;              /* asked for, with a quota and grid: the rest is set */
	uint64_t period_us, step_us;
	uint64_t periods;        /* whole periods in the interval (0: the figures below are 0) */
	uint64_t mean_us, p50_us, p90_us, p99_us, max_us;
	uint64_t late;           /* reads a step late or more, since the start */
};
/* Its figures from the demand of each whole period v[0..n) (sorted here). */
void demand_stats_of(uint64_t *v, size_t n, struct demand_stats *out);

/*
 * Period stats kept up to date as episodes arrive, for the exporter's
 * counters, which must not depend on how often they are read. Each
 * throttled period adds its ran-out time to a bucket. Each run of
 * throttled periods adds its length to a bucket once it is over, that is,
 * once a period after it has ended without a throttle. An episode of a
 * period at or before the last one counted adds nothing: its period is
 * counted already, or it came too late.
 */
#define PT_RAN_OUT_BOUNDS 8
#define PT_RUN_BOUNDS 8
extern const uint64_t period_ran_out_bounds_ns[PT_RAN_OUT_BOUNDS]; /* 5 ms .. 1 s */
extern const uint64_t period_run_bounds[PT_RUN_BOUNDS];             /* 1 .. 100 periods */
/* Who also wants each period and run as it is counted (the timeline): start and end ktime ns. */
struct period_sink {
	void (*period)(void *ctx, uint64_t start_ns, uint64_t end_ns, uint64_t ran_out_ns, uint64_t run);
	void (*run)(void *ctx, uint64_t start_ns, uint64_t end_ns, uint64_t len);
	void *ctx;
};
struct period_track {
	uint64_t period_ns, end_ns;   /* the grid counted on; 0: none yet (episodes are not counted) */
	uint64_t from_ns;             /* periods that ended before it are not counted (ktime; 0: all) */
	bool any;
	int64_t last;                 /* the last throttled period counted */
	uint64_t run;                 /* throttled periods in a row up to last; 0: none open */
	uint64_t throttled;           /* periods counted */
	uint64_t ran_out[PT_RAN_OUT_BOUNDS + 1]; /* by bucket (the last: above every bound) */
	uint64_t ran_out_sum_ns;
	uint64_t runs[PT_RUN_BOUNDS + 1];
	uint64_t runs_sum, nruns;     /* periods in the runs that ended, and how many runs */
	const struct period_sink *sink; /* NULL: none */
};
/* Set the grid. A new period length starts afresh: the old grid's periods do not continue on it. */
void period_track_grid(struct period_track *t, uint64_t period_ns, uint64_t end_ns);
/* Episodes of its cgroup, in any order. 0 or -ENOMEM. */
int period_track_add(struct period_track *t, const struct cgs_episode *e, size_t n);
/*
 * Close the open run if it is over at now (ktime). It is over once a whole
 * period has passed after the period that follows its last, unless an
 * episode of its cgroup is still pending (trace/tracer.h tracer_pending).
 */
void period_track_close(struct period_track *t, uint64_t now_ns, bool pending);
/* End the open run, if any, at the window's end; the sink sees it cut there. */
void period_track_end(struct period_track *t);

#endif
