/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * record's CPU demand period by period (report/periods.h, struct
 * demand_series): the traced subtree's on-CPU time and throttled waits,
 * read at each period's end. With a quota, on the grid of its period timer
 * (found with the cgroup iterator once the quota has been used; until then
 * nothing is kept); without one, or without the iterator, in windows of
 * the period from the command's exec (demand_rec_origin), or with --attach
 * (or a grid not found in 5 s) from the first read (what came before it
 * has no known start).
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
 * Start at now: periods of period_ns; with grid, on the grid of the cgroup
 * (id, rel) once its period timer runs (its quota's).
 */
void demand_rec_start(struct demand_rec *d, struct session *s, uint64_t period_ns, bool grid, uint64_t id,
		      const char *rel, uint64_t now);
/*
 * Without a grid: the windows begin at t, from nothing. For a command in a
 * new cgroup, t is its exec: the kernel's period that begins as the command
 * does holds its whole start (exec, loader, its own set-up) beside a full
 * period of its work, and the first window must too. A base read at the
 * first tick came milliseconds later, and its windows never held the start
 * whole: advice without it was throttled in the period the start fell in
 * (docs/testing.md, test_advise_steady). What ran in the cgroup before t
 * (the child between joining it and exec) goes into the first step.
 */
void demand_rec_origin(struct demand_rec *d, uint64_t t);
/*
 * Read at a period's end when one has come (it waits the last stretch to
 * it when it is under 2 ms away). Returns the ms until the next read, for
 * the caller's poll (at most 20).
 */
int demand_rec_tick(struct demand_rec *d, struct session *s, uint64_t now);
void demand_rec_free(struct demand_rec *d);

#endif
