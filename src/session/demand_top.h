/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * top --demand: the CPU demand period by period of every cgroup with a
 * quota of its own, as record --demand keeps it for one cgroup
 * (report/periods.h). Demand is the subtree's on-CPU time plus its tasks'
 * throttled waits, summed per period of its quota's grid.
 *
 * One clock of reads serves every cgroup. It reads every step: a tenth of
 * the shortest period among them, and at least 1 ms. A step's on-CPU time
 * counts in the period its middle falls in. Its throttled waits ended in
 * it, so they are spread over the quiet stretch before it (step() says
 * how). So a period's demand is off its grid by up to half a step at each
 * end; record, for one cgroup, reads on its grid exactly. Each interval
 * takes the distribution of its whole periods.
 */
#ifndef CGS_DEMAND_TOP_H
#define CGS_DEMAND_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include "figures/snapshot.h"
#include "lib/idtab.h"
#include "report/periods.h"

struct session;
struct report;

struct demand_top {
	struct session *s;
	struct idtab cgs;       /* cgroup id -> struct dt_ref: the cgroups with a quota and grid */
	struct idtab anc;       /* a traced cgroup's id -> struct dt_anc: the cgroups above it (or it) kept */
	uint64_t step_ns;       /* 0: no cgroup yet, no reads */
	uint64_t next_ns, last_ns; /* the next read; the last (0: none yet) */
	uint64_t late;          /* reads a step late or more (their steps are one, in one period) */
	struct snapshot snap;   /* the reads' arrays, reused */
};

void demand_top_start(struct demand_top *d, struct session *s);
/*
 * Find the cgroups with a quota and grid now, in one pass of the cgroup
 * iterator (none without it). They are read from the first step, so that
 * the first interval has their periods too.
 */
void demand_top_discover(struct demand_top *d);
/*
 * Call at each interval. It keeps the cgroups among the rows that have a
 * quota and grid of their own; new ones start with their next whole
 * period. It fills each such row's dem with the distribution of its whole
 * periods since the last interval.
 */
void demand_top_interval(struct demand_top *d, struct report *r);
/* Read if a step has ended. Returns the ms until the next read; the session's waits poll no longer. */
int demand_top_tick(void *d, uint64_t now);
void demand_top_free(struct demand_top *d);

#endif
