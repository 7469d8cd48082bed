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
 * if no grid is found in 5 s, they start when the steps are armed, because
 * what came before has no known start.
 */
#ifndef CGS_DEMAND_REC_H
#define CGS_DEMAND_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "figures/kstat_src.h"
#include "figures/snapshot.h"
#include "report/periods.h"

struct session;

/*
 * A task's lag is at most two periods, and a placement reaches back at most
 * three: the lag and a wait of a period (trace/demand_steps.h). So a step
 * is pushed once DEMAND_REACH_STEPS and one more have ended after it.
 */
#define DEMAND_LAG_STEPS (2 * DEMAND_STEPS)
#define DEMAND_REACH_STEPS (3 * DEMAND_STEPS)
#define DEMAND_WAIT_RING 128 /* over CGS_DEM_SEGS + DEMAND_REACH_STEPS + 1 */

struct demand_rec {
	struct demand_series ds;
	/*
	 * The steps (trace/demand_steps.h): step i ends at origin + (i + 1) x
	 * ds.step_ns (monotonic). next_step is the first not yet pushed.
	 */
	uint64_t origin;
	uint64_t next_step;
	uint64_t ended;           /* steps ended at the last read */
	/* Throttled waits by the step they were read in, until it is pushed. */
	uint64_t waits[DEMAND_WAIT_RING];
	bool armed;
	bool zero_base;           /* step 0 holds what ran before it too (the command's start) */
	bool wait_exec;           /* step 0 holds everything until the exec moves the origin there */
	bool failed;              /* the steps could not be kept (said): nothing more is pushed */
	uint64_t waited0;         /* the subtree's throttled waits at the last read */
	/* The grid, with a quota: looked for every 100 ms, up to 5 s. */
	bool want_grid;
	struct kstat_src ks;
	bool ks_open;
	uint64_t id;
	const char *rel;
	int tries;
	uint64_t next_probe_ns;
	struct snapshot snap;     /* the reads' arrays, reused */
};

/*
 * Start at now, with periods of period_ns. With grid, the periods follow
 * the grid of the cgroup (id, rel) once its quota's period timer runs. With
 * at_exec, they begin at the command's exec (demand_rec_origin). Otherwise
 * they begin now. The session must have been opened with
 * session_opts.demand.
 */
void demand_rec_start(struct demand_rec *d, struct session *s, uint64_t period_ns, bool grid, bool at_exec,
		      uint64_t id, const char *rel, uint64_t now);
/*
 * Without a grid, the windows begin at t, the command's exec in its new
 * cgroup. The kernel's period that begins with the command holds its whole
 * start (exec, loader, its own set-up) and a full period of its work. The
 * first window must hold both, or the advice would be too low for that
 * period. What ran in the cgroup before t (the child between joining it and
 * exec) goes into the first step.
 */
void demand_rec_origin(struct demand_rec *d, struct session *s, uint64_t t);
/*
 * Push every step that has ended. The BPF side captured each step end, so
 * a late read misplaces nothing. A step whose capture is gone, read more
 * than CGS_DEM_SEGS step ends late, is lost and counted in ds.late. If the
 * next step ends under 2 ms from now, wait for it here. Returns the ms until the next read, at most 20, for
 * the caller's poll.
 */
int demand_rec_tick(struct demand_rec *d, struct session *s, uint64_t now);
/* At the end, before the tracer detaches: every step that has ended, and the losses. */
void demand_rec_finish(struct demand_rec *d, struct session *s, uint64_t now);
void demand_rec_free(struct demand_rec *d);

#endif
