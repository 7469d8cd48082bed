/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * record's CPU demand period by period (report/periods.h, struct
 * demand_series): the traced subtree's on-CPU time and throttled waits,
 * read at each period's end.
 *
 * With a quota, the periods follow the grid of its period timer. The grid
 * is found with the cgroup iterator once the quota has been used; until
 * then nothing is kept. Without a quota or the iterator, the periods are
 * windows from the command's exec (demand_rec_origin). With --attach, or
 * if no grid is found in 5 s, they start at the first read, because what
 * came before it has no known start.
 */
#ifndef CGS_DEMAND_REC_H
#define CGS_DEMAND_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "figures/kstat_src.h"
#include "figures/snapshot.h"
#include "report/periods.h"

struct session;

struct demand_rec {
	struct demand_series ds;
	uint64_t next_ns;         /* the next period end to read at (monotonic); 0: not started */
	uint64_t used0, waited0;  /* the subtree's figures at the last read */
	bool primed;              /* used0, waited0 hold a read */
	/* The grid, with a quota: looked for every 100 ms, up to 5 s. */
	bool want_grid;
	struct kstat_src ks;
	bool ks_open;
	uint64_t id;
	const char *rel;
	int tries;
	uint64_t next_probe_ns;
	struct snapshot snap;     /* the reads' arrays, reused */
	uint64_t *settled0;       /* [ncpus]: the subtree's on-CPU time by CPU at the last read, less running slices */
};

/*
 * Start at now, with periods of period_ns. With grid, the periods follow
 * the grid of the cgroup (id, rel) once its quota's period timer runs.
 */
void demand_rec_start(struct demand_rec *d, struct session *s, uint64_t period_ns, bool grid, uint64_t id,
		      const char *rel, uint64_t now);
/*
 * Without a grid, the windows begin at t, from nothing. For a command in a
 * new cgroup, t is its exec. The kernel's period that begins with the
 * command holds its whole start (exec, loader, its own set-up) beside a
 * full period of its work, so the first window must too. A window that
 * began at the first read would miss part of the start, and advice from it
 * would be too low for that period (docs/testing.md, test_advise_steady).
 * What ran in the cgroup before t (the child between joining it and exec)
 * goes into the first step.
 */
void demand_rec_origin(struct demand_rec *d, uint64_t t);
/*
 * Read at a period's end once one has come. If the end is under 2 ms
 * away, wait for it here. Returns the ms until the next read, at most 20,
 * for the caller's poll.
 */
int demand_rec_tick(struct demand_rec *d, struct session *s, uint64_t now);
void demand_rec_free(struct demand_rec *d);

#endif
