/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * export's demand per period of every cgroup, and the limit it advises.
 *
 * A cgroup's demand in a period is the CPU time its subtree's tasks ran
 * in it, with work a throttle delayed placed where it would have run
 * (record --demand's estimator; docs/design.md, "Demand per period"). The
 * periods are those of its own quota's grid where it has a quota, and of
 * a 100 ms grid from time 0 where it has none. The BPF side adds each
 * slice to steps of its slot's grid (trace/per_steps.h). A slot follows
 * the grid of the nearest quota at or above its cgroup, so a cgroup with
 * a quota of its own sums its periods exactly. Any other cgroup takes a
 * step into the period its middle falls in: up to half a step (1/16 of a
 * period) off at each end.
 *
 * Each closed period goes into the cgroup's histogram, and into a window
 * of the last --advise-window of periods. From the window, the least quota
 * that keeps the throttled periods within --advise-target is found, with
 * and without a burst, as `cgsched advise` finds it (limits/advise.h).
 */
#ifndef CGS_DEMAND_ALL_H
#define CGS_DEMAND_ALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "figures/kstat_src.h"
#include "lib/idtab.h"

struct session;

/*
 * The histogram's buckets, in CPUs (a period's demand over its length).
 * Bucket 0 holds idle periods. Bucket i >= 1 holds demand up to
 * 2^(DEM_OCT_LO + i / DEM_PER_OCT) CPUs: each bucket is 4.4 % wider than
 * the one below, so a quantile read from them is within 4.4 %.
 */
#define DEM_PER_OCT 16
#define DEM_OCT_LO (-10)
#define DEM_BUCKETS_MAX (DEM_PER_OCT * 21 + 1) /* up to 2^11 CPUs */
/* Open periods a cgroup holds at once: the reads' lag is a few periods (per_steps.h), or 64 periods of 1 ms. */
#define DEM_OPEN 128
/*
 * The window keeps a byte a period, on a log scale: within 2.2 %, from the
 * whole machine down to 1/58,000 of it (demand_code). 255 marks a period left out.
 */
#define DEM_CODE_NONE 255
/* The most periods a window holds: an hour of 100 ms periods (shorter periods keep a shorter window). */
#define DEM_WINDOW_MAX 36000

struct dem_advice {
	bool ok;                   /* computed: enough periods in the window (ADVISE_MIN_PERIODS) */
	uint64_t n;                /* periods it is from */
	uint64_t quota_ns;         /* without a burst */
	uint64_t bq_quota_ns, bq_burst_ns; /* with one (where the kernel has bursts) */
	bool burst_ok;
	uint64_t at_ns;            /* when it was computed */
};

/* One cgroup's demand. The exporter reads these under its lock. */
struct dem_cg {
	uint64_t id;
	struct dem_cg *parent;     /* NULL: the root, or not known */
	bool own_quota;            /* the grid is its own quota's */
	bool gone;                 /* not seen in the last pass over the cgroups */
	bool doomed;               /* demand_all_sweep lets go of it */
	bool gridded;              /* its slot was put on its grid (at its first step, then at each pass) */
	uint64_t gone_ns;
	uint64_t period_ns, origin_ns; /* its grid */
	/* Closed periods since the grid was set. */
	uint64_t periods, incomplete; /* counted; left out as incomplete */
	uint64_t sum_ns;           /* their demand */
	uint32_t *bucket;          /* [nbuckets] counts; NULL until the first period */
	uint32_t blo, bhi;         /* buckets in use: [blo, bhi] */
	struct dem_advice adv;
	/* Open periods: open[p % DEM_OPEN] for p from first_open on; UINT64_MAX marks one incomplete. */
	int64_t first_open;
	uint64_t valid_ns;         /* periods beginning before this are not counted */
	uint64_t *open;
	/* The window: one code a closed period, win[(whead + i) % wcap] for i < wn. */
	uint8_t *win;
	size_t wcap, wn, whead;
	uint64_t win_new;          /* periods added since the advice */
	uint64_t wmax_code;        /* the largest code in the window when last advised (its CPUs used) */
	unsigned cpus;             /* CPUs its tasks ran on in the last pass, at most */
	unsigned cpus_max;         /* the most seen since its grid was set */
	uint64_t *cpu_bits;        /* this pass's CPUs */
};

struct demand_all_opts {
	double target;             /* --advise-target: share of throttled periods allowed */
	uint64_t window_ns;        /* --advise-window */
};

struct demand_all {
	struct session *s;
	struct demand_all_opts o;
	struct idtab cgs;          /* id -> struct dem_ref */
	struct kstat_src ks;
	bool ks_open;
	unsigned nbuckets;
	char (*le)[24];            /* each bucket's upper bound, as text */
	uint64_t done_ns;          /* steps up to here are all in */
	uint64_t next_read_ns, next_pass_ns;
	size_t advise_at;          /* where the round of advice goes on (an entry of cgs) */
	uint64_t late_steps;       /* steps that came for a period already closed */
	uint64_t reads, passes;
	uint64_t cpu_ns;           /* CPU time its work took in this thread */
	int ncpus;
	bool burst;                /* the kernel has bursts: advise with one too */
	uint64_t *regrid;          /* cgroups whose slots a read saw first: gridded after it */
	size_t nregrid, regrid_cap;
	uint64_t *buf;             /* the advice's periods, reused */
	size_t bufcap;
};

/* Begin for session s (traced with trace_cfg.per). 0 or -errno. */
int demand_all_start(struct demand_all *d, struct session *s, const struct demand_all_opts *o);
/*
 * Read the steps when due, close the periods they complete, and go on
 * with the round of advice. Call it often (session.tick); it returns the
 * ms until it is next due. The caller holds the lock its readers take.
 */
int demand_all_tick(struct demand_all *d, uint64_t now);
/* The cgroup's demand, or NULL. */
const struct dem_cg *demand_all_find(const struct demand_all *d, uint64_t id);
/* Forget cgroups gone for longer than grace_ns. Only while no reader holds a dem_cg. */
void demand_all_sweep(struct demand_all *d, uint64_t now, uint64_t grace_ns);
void demand_all_free(struct demand_all *d);
/* The histogram's upper bound of bucket i >= 1, in CPUs, and as text. */
double demand_bucket_le(unsigned i);
const char *demand_bucket_le_text(const struct demand_all *d, unsigned i);
/* The bucket of a demand of ns in a period of period_ns. */
unsigned demand_bucket_of(uint64_t ns, uint64_t period_ns, unsigned nbuckets);
/* A period's demand as a window code, and back (in ns), for a period of period_ns on ncpus. */
uint8_t demand_code(uint64_t ns, uint64_t period_ns, int ncpus);
uint64_t demand_uncode(uint8_t c, uint64_t period_ns, int ncpus);

#endif
