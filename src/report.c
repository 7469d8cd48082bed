// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroupfs.h"
#include "hist.h"
#include "report.h"
#include "util.h"

static const char *const sort_names[] = {
	[SORT_CPU] = "cpu",       [SORT_P50] = "p50",  [SORT_P99] = "p99",
	[SORT_MAX] = "max",       [SORT_WAKEUPS] = "wakeups", [SORT_VOL] = "vol",
	[SORT_INVOL] = "invol",   [SORT_PATH] = "path",
};

int sort_key_parse(const char *s, enum sort_key *k)
{
	for (size_t i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
		if (!strcmp(s, sort_names[i])) {
			*k = i;
			return 0;
		}
	return -EINVAL;
}

static void add_preemptor(struct row *w, uint64_t id, uint64_t count)
{
	int i = w->npre;

	w->preempted += count;
	/* Keep the largest few, by insertion. */
	if (i == REPORT_TOP_PREEMPTORS) {
		if (count <= w->pre[i - 1].count)
			return;
		i--;
	} else {
		w->npre++;
	}
	while (i > 0 && w->pre[i - 1].count < count) {
		w->pre[i] = w->pre[i - 1];
		i--;
	}
	w->pre[i] = (struct preemptor){ .id = id, .count = count };
}

int report_build(struct report *r, const struct snapshot *d, uint64_t interval_ns,
		 struct cgfs *fs, bool hist_ms)
{
	double unit = hist_ms ? 1e6 : 1e3;

	memset(r, 0, sizeof(*r));
	r->interval_ns = interval_ns;
	r->d = d;
	r->hist_ms = hist_ms;
	r->rows = calloc(d->n ? d->n : 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	size_t pi = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct cg_sample *c = &d->cg[i];
		struct row *w = &r->rows[r->n++];
		const char *last;

		w->id = c->id;
		w->s = c;
		w->path = cgfs_path(fs, c->id, true, &last);
		if (!w->path) {
			w->removed = true;
			w->path = last;
		}
		w->cpu_pct = interval_ns ? 100.0 * c->oncpu_ns / interval_ns : 0;
		w->runq_max_ns = c->runq_max_ns;
		w->runq_p50_ns = hist_percentile(c->runq_slots, CGS_HIST_SLOTS, 50,
						 c->runq_max_ns / unit) * unit;
		w->runq_p99_ns = hist_percentile(c->runq_slots, CGS_HIST_SLOTS, 99,
						 c->runq_max_ns / unit) * unit;
		/* d->pre is sorted by victim, as d->cg by id: walk both together. */
		while (pi < d->npre && d->pre[pi].victim < c->id)
			pi++;
		for (; pi < d->npre && d->pre[pi].victim == c->id; pi++)
			add_preemptor(w, d->pre[pi].preemptor, d->pre[pi].count);
		for (int k = 0; k < w->npre; k++)
			w->pre[k].path = cgfs_path(fs, w->pre[k].id, false, NULL);
	}
	return 0;
}

static enum sort_key cur_key;

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double vx = 0, vy = 0;

	switch (cur_key) {
	case SORT_CPU: vx = x->cpu_pct; vy = y->cpu_pct; break;
	case SORT_P50: vx = x->runq_p50_ns; vy = y->runq_p50_ns; break;
	case SORT_P99: vx = x->runq_p99_ns; vy = y->runq_p99_ns; break;
	case SORT_MAX: vx = x->runq_max_ns; vy = y->runq_max_ns; break;
	case SORT_WAKEUPS: vx = x->s->wakeups; vy = y->s->wakeups; break;
	case SORT_VOL: vx = x->s->sw_vol; vy = y->s->sw_vol; break;
	case SORT_INVOL: vx = x->s->sw_invol; vy = y->s->sw_invol; break;
	case SORT_PATH:
		return strcmp(x->path ? x->path : "~", y->path ? y->path : "~");
	}
	/* Largest first; ties by id so output is stable. */
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void report_sort(struct report *r, enum sort_key k)
{
	cur_key = k;
	qsort(r->rows, r->n, sizeof(*r->rows), cmp_row);
}

void report_free(struct report *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

const char *row_name(const struct row *w, char *buf, size_t len)
{
	if (!w->removed)
		return w->path;
	if (w->path)
		snprintf(buf, len, "%s (removed)", w->path);
	else
		snprintf(buf, len, "(removed, id %llu)", (unsigned long long)w->id);
	return buf;
}

/* Long paths keep their tail, the part that tells cgroups apart. */
static const char *clip(const char *s, char *buf, size_t width)
{
	size_t l = strlen(s);

	if (l <= width)
		return s;
	snprintf(buf, width + 1, "..%s", s + l - (width - 2));
	return buf;
}

void report_table(FILE *f, const struct report *r, size_t limit)
{
	size_t width = 6, n = limit && limit < r->n ? limit : r->n;
	char name[PATH_MAX + 32], clipbuf[PATH_MAX], a[16], b[16], c[16], pre[PATH_MAX + 32];

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(row_name(&r->rows[i], name, sizeof(name)));
		if (l > width)
			width = l;
	}
	if (width > 40)
		width = 40;
	fprintf(f, "%-*s %6s %9s %9s %9s %8s %7s %7s  %s\n", (int)width, "CGROUP", "CPU%",
		"RUNQ_P50", "RUNQ_P99", "RUNQ_MAX", "WAKEUPS", "SW_VOL", "SW_INV", "TOP_PREEMPTOR");
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &r->rows[i];
		if (w->npre) {
			char pn[PATH_MAX];
			const char *p = w->pre[0].path;
			if (!p) {
				snprintf(pn, sizeof(pn), "(id %llu)", (unsigned long long)w->pre[0].id);
				p = pn;
			}
			snprintf(pre, sizeof(pre), "%s (%llu)", clip(p, clipbuf, 40),
				 (unsigned long long)w->pre[0].count);
		} else {
			snprintf(pre, sizeof(pre), "-");
		}
		fprintf(f, "%-*s %6.1f %9s %9s %9s %8llu %7llu %7llu  %s\n", (int)width,
			clip(row_name(w, name, sizeof(name)), clipbuf, width), w->cpu_pct,
			w->s->runq_count ? fmt_duration(a, sizeof(a), w->runq_p50_ns) : "-",
			w->s->runq_count ? fmt_duration(b, sizeof(b), w->runq_p99_ns) : "-",
			w->s->runq_count ? fmt_duration(c, sizeof(c), w->runq_max_ns) : "-",
			(unsigned long long)w->s->wakeups, (unsigned long long)w->s->sw_vol,
			(unsigned long long)w->s->sw_invol, pre);
	}
}

void report_drops(FILE *f, const uint64_t *drops)
{
	if (!drops_total(drops)) {
		fputs("drops: none\n", f);
		return;
	}
	fputs("drops:", f);
	for (int i = 0; i < CGS_DROP__COUNT; i++)
		if (drops[i])
			fprintf(f, " %s=%llu", drop_name(i), (unsigned long long)drops[i]);
	fputc('\n', f);
}
