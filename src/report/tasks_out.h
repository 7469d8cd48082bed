/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* top --tasks and hist --per-task: one row per process (or thread) and cgroup. */
#ifndef CGS_TASKS_OUT_H
#define CGS_TASKS_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"


struct task_row {
	const struct task_sample *t;
	const char *path;       /* its cgroup's; NULL when gone */
	const struct cgname *who; /* its cgroup's name (lib/cgname.h); NULL: the path says nothing more */
	double cpu_pct, runq_p50_ns, runq_p99_ns;
};

struct task_report {
	uint64_t interval_ns;
	bool threads;           /* rows are threads (--threads) */
	size_t n;
	struct task_row *rows;
};

/* Rows for d's tasks, sorted by k (SORT_THR as SORT_CPU), paths through fs. 0 or -ENOMEM. */
int task_report_build(struct task_report *r, const struct snapshot *d, uint64_t interval_ns, bool hist_ms,
		      bool threads, struct cgfs *fs, enum sort_key k);
/* The rows in order of k again (as task_report_build sorts them). */
void task_report_sort(struct task_report *r, enum sort_key k);
void task_report_free(struct task_report *r);
/* The table: PID (TID PID with threads), COMM, CGROUP and top's columns; `limit` rows (0: all). */
void task_table(FILE *f, const struct task_report *r, size_t limit);

#endif
