/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * record --demand's steps, from step ends the BPF side captures
 * (sched.bpf.c dem_capture, include/cgsched.h struct cgs_dem_cpu). A step
 * is read exactly however late its read comes, while its ends are among the
 * last CGS_DEM_SEGS captures, so a loader kept from its CPU misplaces no
 * demand. Work a throttle delayed is placed where it would have run
 * (include/cgsched.h, struct cgs_dem_bucket): earlier by a task's lag,
 * at most lag_max_ns. No placement reaches back more than reach_ns, so a
 * step is whole once that and a step have passed since its end.
 */
#ifndef CGS_DEMAND_STEPS_H
#define CGS_DEMAND_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/tracer.h"

/*
 * Capture step ends every step_ns from origin_ns (monotonic). Arming again
 * moves the origin and keeps the totals. The tracer must have been opened
 * with tracer_opts.demand. 0 or -errno.
 */
int tracer_demand_arm(struct tracer *t, uint64_t origin_ns, uint64_t step_ns, uint64_t lag_max_ns, uint64_t reach_ns);
/*
 * The demand of steps first .. first + n - 1, summed over CPUs, into ns: the
 * on-CPU time, with delayed work placed where it would have run.
 * Step i runs from step end i to step end i + 1. With zero_base, step end 0
 * counts as nothing, so step 0 holds all that ran before it too. Ask only
 * for steps that have ended. A step whose capture was overwritten reads
 * UINT64_MAX. 0 or -errno.
 */
int tracer_demand_steps(struct tracer *t, uint64_t first, size_t n, bool zero_base, uint64_t *ns);
/* Waits past lag_max_ns counted as demand, and placed work put at an edge, in ns over CPUs. */
int tracer_demand_losses(struct tracer *t, uint64_t *unplaced_ns, uint64_t *clipped_ns);

#endif
