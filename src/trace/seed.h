/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Tell each CPU what it runs when tracing begins, and again on demand (seed.c). */
#ifndef CGS_SEED_H
#define CGS_SEED_H

#include "trace/tracer_state.h"

/*
 * Tell every CPU what it is running now (sched.bpf.c seed_cpu). Returns
 * "ipi", or "nudge" after the fallback where the kernel cannot run a
 * program on a chosen CPU.
 */
const char *seed_cpus(struct tracer *t);
/* Run seed_cpu (its fd) on one CPU: 0, or -errno (-ENXIO: the CPU is offline). */
int seed_one(int fd, int cpu);
/* Tell every CPU again what it runs, so a switch the kernel did not trace is caught up. */
void tracer_sync_cpus(struct tracer *t);

#endif
