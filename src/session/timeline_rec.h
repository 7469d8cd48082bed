/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --timeline FILE (top, record): a session's events as a Perfetto trace
 * (report/timeline.h). Each cgroup has a track, nested as the hierarchy
 * and named as top names it. Under it, each CPU has a track of the
 * cgroup's throttle episodes. Each thread has a track of its waits longer
 * than the threshold, named by the cgroup whose task ran meanwhile. With a
 * quota, a track shows its throttled periods and their runs in a row, on
 * the grid of its period timer (report/periods.h). Each period is a slice
 * as long as the period, named by when the quota ran out. Counters show,
 * per interval, CPU %, run-queue p99, throttled % and quota used %. Lost
 * events have a counter track of their own and a line on stderr.
 */
#ifndef CGS_TIMELINE_REC_H
#define CGS_TIMELINE_REC_H

#include <stdint.h>

#include "session/session.h"
#include "figures/kstat_src.h"
#include "lib/idtab.h"
#include "report/periods.h"
#include "report/report.h"
#include "report/timeline.h"
#include "trace/tracer.h"

#define TIMELINE_LONG_WAIT_DEFAULT_NS 10000000ULL

struct tl_rec {
	struct timeline tl;
	struct session *s;
	struct idtab seen;        /* uuid -> struct tl_seen: tracks announced */
	uint64_t lost;            /* events lost so far (the BPF side's drops), for the counter */
	/*
	 * Period by period: an interval's episodes wait here until their
	 * cgroups' grids are known (the interval's rows bring them). Then each
	 * cgroup's period_track draws its periods. The wait is bounded;
	 * episodes beyond the bound are not placed.
	 */
	struct idtab per;         /* cgid -> struct tl_per_ref */
	struct cgs_episode *pend;
	size_t npend, cappend;
	struct cg_pending pending; /* cgroups with an episode still to come: their runs stay open */
	uint64_t unplaced;        /* episodes never placed on a grid (none known, or the bound) */
	struct kstat_src ks;      /* record's intervals: the kernel's figures (opened on the first) */
	bool ks_tried, ks_open;
	bool finished;
	bool replay;              /* fed kept events (tl_rec_replay), not a tracer's */
};

/* Open FILE before tracing starts; it is written beside FILE until closed. 0, or CGS_EXIT_USAGE after printing why. */
int tl_rec_open(struct tl_rec *r, const char *path);
/* The same for a caller that says what failed (cgsched watch): 0 or -errno, no line; failures in tl.err. */
int tl_rec_open_quiet(struct tl_rec *r, const char *path);
/* Tracing has started: every episode and long wait from now goes into the trace as it arrives. */
void tl_rec_attach(struct tl_rec *r, struct session *s);
/*
 * Use instead of tl_rec_attach for events kept elsewhere (cgsched watch's
 * incidents). The session names the cgroups. The events come through
 * tl_rec_episode and tl_rec_wait, each track's in order of time. The
 * counters come through tl_rec_rows, and the losses through tl_rec_lost.
 */
void tl_rec_replay(struct tl_rec *r, struct session *s, uint64_t t0_ns);
void tl_rec_episode(struct tl_rec *r, const struct cgs_episode *e);
void tl_rec_wait(struct tl_rec *r, const struct cgs_wait *w);
void tl_rec_lost(struct tl_rec *r, uint64_t t_ns, uint64_t lost);
/* One interval's counters, from its report (top's own), at its end t_ns. */
void tl_rec_rows(struct tl_rec *r, const struct report *rep, uint64_t t_ns);
/* The same from two snapshots (record): the report built here. */
void tl_rec_snapshots(struct tl_rec *r, const struct snapshot *prev, const struct snapshot *cur);
/* The traced command's run, as a slice on a track of its own. */
void tl_rec_command(struct tl_rec *r, const char *name, uint64_t start_ns, uint64_t end_ns);
/*
 * Call at the end, while still tracing. It writes the last events and the
 * losses from the BPF side's own counts into the trace, and any losses on
 * stderr.
 */
void tl_rec_finish(struct tl_rec *r);
/*
 * Close: keep the trace at FILE, or (bad input after the open) remove it.
 * 0, or CGS_EXIT_FAIL when the file could not be written (said on stderr).
 */
int tl_rec_close(struct tl_rec *r, bool keep);

#endif
