/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * export's demand per period of every cgroup, read from the BPF side
 * (include/cgsched.h struct cgs_per). Each slot has a grid of steps, an
 * eighth of a period each at most. The programs add each on-CPU slice to
 * the steps it covers, placed earlier by the time a throttle held its task
 * (record --demand's estimator, docs/design.md "Demand per period"). A
 * read takes every step that no program can add to any more, zeroes it,
 * and hands it on. It spreads the slices the programs pass over whole: the
 * long ones, and those reaching back before the steps already read. A
 * slice still running when its steps are read is credited at the read; its
 * end then adds only the rest. So a step is exact however long its slices
 * run, as long as each read comes within CGS_PER_RING steps less the reach
 * (tracer_per_due).
 */
#ifndef CGS_PER_STEPS_H
#define CGS_PER_STEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/tracer_state.h"

/* A grid: periods of period_ns, one of them ending at origin_ns (monotonic). */
struct per_grid {
	uint64_t origin_ns;
	uint64_t period_ns;
};

/* The default grid: 100 ms periods from time 0, for cgroups with no quota. */
#define PER_DEFAULT_PERIOD_NS 100000000ULL

/* What a read hands on, for one slot at a time. */
struct per_sink {
	/* A step of the cgroup id with ns of demand (only steps with some). */
	void (*step)(void *ctx, uint64_t id, uint64_t start_ns, uint64_t step_ns, uint64_t ns);
	/* The cgroup's demand in [from_ns, to_ns) is incomplete: a read came too late, or a long slice was lost. */
	void (*lost)(void *ctx, uint64_t id, uint64_t from_ns, uint64_t to_ns);
	void *ctx;
};

/* Set up the reader (tracer_start calls it with trace_cfg.per). 0 or -errno. */
int tracer_per_open(struct tracer *t);
void tracer_per_close(struct tracer *t);
/*
 * Put cgroup id's slot on grid g from now on. Its steps of the old grid
 * not yet read are dropped. Nothing happens if it has no slot or already
 * has that grid. Returns 1 if the grid changed, 0 if not, or -errno.
 */
int tracer_per_grid(struct tracer *t, uint64_t id, const struct per_grid *g);
/*
 * Read every step that is final at time now (monotonic) into sink.
 * *done_ns gets the time up to which every slot's steps are handed on.
 * 0 or -errno.
 */
int tracer_per_read(struct tracer *t, uint64_t now, const struct per_sink *sink, uint64_t *done_ns);
/* When the next read is due at the latest (monotonic), for the shortest grid in use. */
uint64_t tracer_per_due(const struct tracer *t, uint64_t now);
/*
 * cb(id, cpu) for each cgroup with a slot that ran on cpu since the last
 * call, from the per-CPU figures. 0 or -errno.
 */
int tracer_per_cpus(struct tracer *t, void (*cb)(void *ctx, uint64_t id, int cpu), void *ctx);
/* Steps a program put whole into the long ring, and intervals clipped because they came late (ns). */
void tracer_per_stats(const struct tracer *t, uint64_t *long_slices, uint64_t *late_ns);

#endif
