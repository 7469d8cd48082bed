// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cgroupfs.h"
#include "lib/cgname.h"
#include "report/hist.h"
#include "report/tasks_out.h"
#include "lib/util.h"

static double key_of(const struct task_row *w, enum sort_key k)
{
	switch (k) {
	case SORT_P50: return w->runq_p50_ns;
	case SORT_P99: return w->runq_p99_ns;
	case SORT_MAX: return w->t->runq_max_ns;
	case SORT_WAKEUPS: return w->t->wakeups;
	case SORT_VOL: return w->t->sw_vol;
	case SORT_INVOL: return w->t->sw_invol;
	default: return w->cpu_pct;
	}
}

/* Largest first, then by cgroup path and id (SORT_PATH: path and id only): stable output. */
static int cmp_row(const void *a, const void *b, void *key)
{
	const struct task_row *x = a, *y = b;
	enum sort_key k = *(const enum sort_key *)key;
	int c;

	if (k != SORT_PATH) {
		double u = key_of(x, k), v = key_of(y, k);
		if (u != v)
			return u < v ? 1 : -1;
	}
	if ((c = strcmp(x->path ? x->path : "~", y->path ? y->path : "~")))
		return c;
	return x->t->id < y->t->id ? -1 : x->t->id > y->t->id;
}

int task_report_build(struct task_report *r, const struct snapshot *d, uint64_t interval_ns, bool hist_ms,
		      bool threads, struct cgfs *fs, enum sort_key k)
{
	double unit = hist_ms ? 1e6 : 1e3;

	memset(r, 0, sizeof(*r));
	r->interval_ns = interval_ns;
	r->threads = threads;
	if (!(r->rows = calloc(d->ntasks ? d->ntasks : 1, sizeof(*r->rows))))
		return -ENOMEM;
	for (size_t i = 0; i < d->ntasks; i++) {
		const struct task_sample *t = &d->tasks[i];
		struct task_row *w = &r->rows[r->n++];
		w->t = t;
		w->path = cgfs_path(fs, t->cgid, false, NULL);
		w->who = cgfs_who(fs, t->cgid);
		w->cpu_pct = interval_ns ? 100.0 * t->oncpu_ns / interval_ns : 0;
		w->runq_p50_ns = hist_percentile(t->runq_slots, CGS_HIST_SLOTS, 50, t->runq_max_ns / unit) * unit;
		w->runq_p99_ns = hist_percentile(t->runq_slots, CGS_HIST_SLOTS, 99, t->runq_max_ns / unit) * unit;
	}
	task_report_sort(r, k);
	return 0;
}

void task_report_sort(struct task_report *r, enum sort_key k)
{
	if (r->n)
		qsort_r(r->rows, r->n, sizeof(*r->rows), cmp_row, &k);
}

void task_report_free(struct task_report *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

void task_table(FILE *f, const struct task_report *r, size_t limit)
{
	size_t n = limit && limit < r->n ? limit : r->n, wwho = 0, l;
	char a[16], b[16], c[16], comm[4 * 16], esc[4 * PATH_MAX], cl[PATH_MAX];
	char who[4 * CGNAME_SHORT_MAX], wcl[4 * CGNAME_SHORT_MAX];

	/* WHO as in the cgroup table: only where some row's cgroup has one. */
	for (size_t i = 0; i < n; i++)
		if (who_text(r->rows[i].who, who, sizeof(who)) && (l = strlen(who)) > wwho)
			wwho = l < 3 ? 3 : l > 40 ? 40 : l;
	if (r->threads)
		fprintf(f, "%7s ", "TID");
	fprintf(f, "%7s %-16s %-30s", "PID", "COMM", "CGROUP");
	if (wwho)
		fprintf(f, " %-*s", (int)wwho, "WHO");
	fprintf(f, " %6s %9s %9s %9s %8s %7s %7s\n", "CPU%", "RUNQ_P50", "RUNQ_P99", "RUNQ_MAX", "WAKEUPS",
		"SW_VOL", "SW_INV");
	for (size_t i = 0; i < n; i++) {
		const struct task_row *w = &r->rows[i];
		const struct task_sample *t = w->t;
		if (r->threads)
			fprintf(f, "%7u ", t->id);
		fprintf(f, "%7u %-16s %-30s", r->threads ? t->tgid : t->id, text_escape(t->comm, comm, sizeof(comm)),
			clip(w->path ? text_escape(w->path, esc, sizeof(esc)) : "(removed)", cl, 30));
		if (wwho)
			fprintf(f, " %-*s", (int)wwho,
				who_text(w->who, who, sizeof(who)) ? clip_end(who, wcl, wwho) : "-");
		fprintf(f, " %6.1f %9s %9s %9s %8llu %7llu %7llu\n", w->cpu_pct,
			t->runq_count ? fmt_duration(a, sizeof(a), w->runq_p50_ns) : "-",
			t->runq_count ? fmt_duration(b, sizeof(b), w->runq_p99_ns) : "-",
			t->runq_count ? fmt_duration(c, sizeof(c), t->runq_max_ns) : "-",
			(unsigned long long)t->wakeups, (unsigned long long)t->sw_vol,
			(unsigned long long)t->sw_invol);
	}
}
