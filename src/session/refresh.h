/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One refresh: from two reads of a session's maps to the rows a command
 * shows. First it makes the interval's delta, the groups' sums
 * (--group-by), and the kernel's figures beside each row. Then it makes
 * the rows, the waits' causes (--why) with the kernel's pressure beside
 * them, and the per-task rows. Last it sorts the rows and looks up the
 * paths and names of those shown. The commands top, hist, record, enforce
 * and --timeline all use it. A command says what it wants here, and adds
 * only its output.
 */
#ifndef CGS_REFRESH_H
#define CGS_REFRESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "figures/snapshot.h"
#include "lib/idtab.h"
#include "report/group.h"
#include "report/report.h"
#include "report/tasks_out.h"

struct kstat_src;
struct psi_track;
struct session;

struct refresh_opts {
	enum group_by group;       /* GROUP_PATH: a row per cgroup */
	struct kstat_src *ks;      /* the kernel's figures beside the rows; NULL: none */
	bool since_first;          /* the kernel's figures since kstat_src_prime (a summary) */
	bool why;                  /* split the waits into causes (report_why) */
	struct psi_track *psi;     /* with why: the kernel's PSI beside them; NULL: none */
	bool hist_ms;              /* histograms in ms slots */
	bool tasks, threads;       /* per-task rows too (per thread with threads) */
	bool sort;                 /* rows in order of key; else as the maps had them */
	enum sort_key key;
	size_t shown;              /* rows that need paths and names (0: all) */
	bool no_paths;             /* no row needs them (the timeline's counters) */
};

struct refresh {
	struct snapshot d;         /* the interval's delta, rows point into it */
	struct snapshot gd;        /* with --group-by: the groups' sums */
	struct groups gs;
	struct idtab kfigs;        /* id -> struct kstat_fig */
	struct report r;
	struct task_report tr;
	bool why_ok;               /* the causes are in the rows (not out of memory) */
	uint64_t kernel_ns;        /* CPU time of the kernel's figures, for -v */
};

/*
 * Make the rows of the interval from prev to cur. Returns 0, or -ENOMEM
 * after printing why (nothing to show). Call refresh_free either way.
 */
int refresh_make(struct refresh *f, struct session *s, const struct refresh_opts *o, const struct snapshot *prev,
		 const struct snapshot *cur);
/*
 * The same into f, which is zeroed or was made before and not freed
 * since. Its largest arrays are reused: the delta's samples, the rows and
 * the kernel's figures' table, as in snapshot_take (figures/snapshot.h).
 * A command refreshing every interval for days keeps one f, and calls
 * refresh_free at its end.
 */
int refresh_remake(struct refresh *f, struct session *s, const struct refresh_opts *o, const struct snapshot *prev,
		   const struct snapshot *cur);
void refresh_free(struct refresh *f);

#endif
