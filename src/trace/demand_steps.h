/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * record --demand's steps, kept by the BPF side (sched.bpf.c dem_add): each
 * traced slice goes into the steps it covers when it ends. A step is read
 * exactly however late its read comes, while it is among the last
 * CGS_DEM_STEPS, so a loader kept from its CPU misplaces no demand.
 */
#ifndef CGS_DEMAND_STEPS_H
#define CGS_DEMAND_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/tracer.h"

/*
 * Keep steps of step_ns from origin_ns (monotonic). With pre, time before the
 * origin goes into step 0. Arming again moves the origin and keeps the steps.
 * The tracer must have been opened with tracer_opts.demand. 0 or -errno.
 */
int tracer_demand_arm(struct tracer *t, uint64_t origin_ns, uint64_t step_ns, bool pre);
/*
 * The on-CPU time of steps first .. first + n - 1, summed over CPUs, into ns:
 * the slices that ended, and the running ones' parts. Ask only for steps that
 * have ended. A step whose place in the ring a later step took reads
 * UINT64_MAX. 0 or -errno.
 */
int tracer_demand_steps(struct tracer *t, uint64_t first, size_t n, uint64_t *ns);
/* The armed origin (monotonic ns), or 0. */
uint64_t tracer_demand_origin(const struct tracer *t);

#endif
