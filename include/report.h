/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* From an interval's delta to rows a person or a program reads. */
#ifndef CGS_REPORT_H
#define CGS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "snapshot.h"

struct cgfs;

#define REPORT_TOP_PREEMPTORS 5

struct preemptor {
	uint64_t id, count;
	const char *path;     /* NULL when the cgroup is gone */
};

struct row {
	uint64_t id;
	const char *path;     /* relative to the hierarchy; last known when removed */
	bool removed;
	const struct cg_sample *s;
	double cpu_pct;       /* on-CPU time / interval, 100 = one CPU */
	double runq_p50_ns, runq_p99_ns;
	uint64_t runq_max_ns;
	int npre;
	struct preemptor pre[REPORT_TOP_PREEMPTORS];
	uint64_t preempted;   /* involuntary switches with a known preemptor */
};

enum sort_key { SORT_CPU, SORT_P50, SORT_P99, SORT_MAX, SORT_WAKEUPS, SORT_VOL, SORT_INVOL,
		SORT_PATH };

struct report {
	uint64_t interval_ns;
	const struct snapshot *d;  /* the delta rows point into */
	bool hist_ms;
	size_t n;
	struct row *rows;
};

/* Parse a -s value ("cpu", "p50", "p99", "max", "wakeups", "vol", "invol", "path"). */
int sort_key_parse(const char *s, enum sort_key *k);
/* Build rows for every cgroup in d; paths from fs (check_alive stats each one). */
int report_build(struct report *r, const struct snapshot *d, uint64_t interval_ns,
		 struct cgfs *fs, bool hist_ms);
void report_sort(struct report *r, enum sort_key k);
void report_free(struct report *r);
/* Display name: path, "path (removed)", or "(removed, id N)". */
const char *row_name(const struct row *w, char *buf, size_t len);
/* The `top` table: header line, column titles, `limit` rows (0: all). */
void report_table(FILE *f, const struct report *r, size_t limit);
/* One line naming every nonzero drop counter, or "drops: none". */
void report_drops(FILE *f, const uint64_t *drops);

#endif
