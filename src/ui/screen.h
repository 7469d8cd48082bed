/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgsched top on a terminal: one screen redrawn in place (ncurses,
 * docs/dependencies.md), as top and htop draw theirs. It shows what a
 * refresh made (report/report.h) and turns keys into what to show next:
 * the sort, a filter, a pause, one cgroup's detail. Everything it needs comes in; it reads no
 * map and no file. The terminal is put back on every way out: its close,
 * exit, a fatal signal (screen_open installs the handlers).
 */
#ifndef CGS_SCREEN_H
#define CGS_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/group.h"
#include "report/report.h"
#include "report/tasks_out.h"

/* Whether top draws a screen: stdin and stdout a terminal that can address the cursor, and no --batch or --json. */
bool screen_wanted(bool batch, bool json);

#define SCREEN_FILTER_MAX 128

/* What the keys ask for, read by the command's loop. */
struct screen_view {
	enum sort_key sort;
	bool paused;
	char filter[SCREEN_FILTER_MAX]; /* a row shows when its path or WHO holds it; "" all */
	bool quit;
	bool resort;                    /* the sort changed: the rows drawn again in its order */
	enum group_by group;            /* g: a row per cgroup, or per unit, container, pod (from the next interval) */
	uint64_t sel;                   /* the cgroup of the highlighted row (arrow keys); 0: the first */
	bool detail;                    /* Enter: that cgroup's detail instead of the rows */
	bool flat;                      /* V: rows by path in the sort's order, not as the cgroup tree */
	bool tasks;                     /* T (or --tasks): a row per task instead of per cgroup */
	uint64_t sel_task;              /* with tasks: the highlighted task's id; 0: the first */
	uint64_t mark_p99_ns;           /* --mark-p99: rows whose run-queue p99 is over it in colour; 0: none */
};

/*
 * Whose per-task figures the screen needs recorded (tracer_tasks_follow):
 * every cgroup's for task rows, the detail's cgroup's, or none (0).
 */
uint64_t screen_tasks_wanted(const struct screen_view *v);

/* What the header says, from the session. */
struct screen_head {
	const char *desc;      /* the session's one-line description (backends, cgroup version) */
	int ncpus;
	uint64_t interval_ns;
	uint64_t drops;        /* every drop counter summed since start */
	bool drops_notable;    /* some say figures are missing (drops_notable), not a start's few unpaired events */
	/* The interval's per-task rows (screen_tasks_wanted's), sorted as the view; NULL: none. */
	const struct task_report *tasks;
	bool tasks_partial;    /* recorded from inside the interval: whole from the next one */
};

/* Take the terminal (alternate screen, no echo, keys one by one). 0, or -1 when the terminal refuses. */
int screen_open(struct screen_view *v);
/* Give it back as it was. Safe to call twice, and from atexit. */
void screen_close(void);
/*
 * A new interval's rows, every one: each throttled or limited cgroup's
 * THR% goes into the history the detail view draws (the last
 * SCREEN_THR_HIST intervals; the intervals of a pause are not in it).
 */
#define SCREEN_THR_HIST 120
void screen_record(const struct report *r);
/* Draw a refresh's rows (sorted already) under the header, as far as the window has room. */
void screen_draw(const struct screen_head *h, const struct report *r, const struct screen_view *v);
/* The keys typed so far, into v; true when something to draw again changed. */
bool screen_keys(struct screen_view *v);

#endif
