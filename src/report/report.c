// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cgroupfs.h"
#include "report/hist.h"
#include "lib/idtab.h"
#include "figures/kstat_src.h"
#include "lib/msort.h"
#include "report/report.h"
#include "lib/cgname.h"
#include "lib/util.h"

static const char *const sort_names[] = {
	[SORT_CPU] = "cpu",       [SORT_P50] = "p50",  [SORT_P99] = "p99",
	[SORT_MAX] = "max",       [SORT_WAKEUPS] = "wakeups", [SORT_VOL] = "vol",
	[SORT_INVOL] = "invol",   [SORT_THR] = "thr",  [SORT_PATH] = "path",
};

int sort_key_parse(const char *s, enum sort_key *k)
{
	for (size_t i = 0; i < ARRAY_SIZE(sort_names); i++)
		if (!strcmp(s, sort_names[i])) {
			*k = i;
			return 0;
		}
	return -EINVAL;
}

/* --- rows ------------------------------------------------------------------ */

void preemptors_add(struct preemptor *pre, int *n, uint64_t id, uint64_t count, const char *path)
{
	int i;

	for (i = 0; i < *n && pre[i].id != id; i++)
		;
	if (i < *n) {
		pre[i].count += count; /* the same preemptor again (record sums rows) */
	} else if (*n < REPORT_TOP_PREEMPTORS) {
		pre[(*n)++] = (struct preemptor){ .id = id, .count = count, .path = path };
	} else if (count > pre[--i].count) {
		pre[i] = (struct preemptor){ .id = id, .count = count, .path = path };
	} else {
		return;
	}
	/* Most first: move the changed entry up to its place. */
	for (; i > 0 && pre[i - 1].count < pre[i].count; i--) {
		struct preemptor t = pre[i - 1];
		pre[i - 1] = pre[i];
		pre[i] = t;
	}
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0;
}

int report_build(struct report *r, const struct snapshot *d, uint64_t interval_ns, bool hist_ms,
		 const struct idtab *kfigs)
{
	memset(r, 0, sizeof(*r));
	return report_rebuild(r, d, interval_ns, hist_ms, kfigs);
}

int report_rebuild(struct report *r, const struct snapshot *d, uint64_t interval_ns, bool hist_ms,
		   const struct idtab *kfigs)
{
	double unit = hist_ms ? 1e6 : 1e3;
	struct row *rows = r->rows, *spare = r->spare;
	size_t cap = r->cap, want = d->n ? d->n : 1;

	for (size_t i = 0; rows && i < r->n; i++)
		free(rows[i].why);
	if (want > cap) { /* the sort's array with it */
		free(spare);
		spare = NULL;
		if (ROOM_FOR(rows, want, cap)) {
			free(rows);
			rows = NULL;
			cap = 0;
		}
	}
	memset(r, 0, sizeof(*r));
	if (!(r->rows = rows))
		return -ENOMEM;
	r->cap = cap;
	r->spare = spare;
	memset(rows, 0, d->n * sizeof(*rows));
	r->interval_ns = interval_ns;
	r->d = d;
	r->hist_ms = hist_ms;
	size_t pi = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct cg_sample *c = &d->cg[i];
		struct row *w = &r->rows[r->n++];

		if (kfigs && i + PREFETCH_AHEAD < d->n) /* its kernel figures' entry, a few rows ahead */
			idtab_prefetch(kfigs, d->cg[i + PREFETCH_AHEAD].id);

		w->id = c->id;
		w->s = c;
		w->cpu_pct = pct(c->c.oncpu_ns, interval_ns);
		w->runq_max_ns = c->runq_max_ns;
		w->runq_p50_ns = hist_percentile(c->c.runq_slots, CGS_HIST_SLOTS, 50,
						 c->runq_max_ns / unit) * unit;
		w->runq_p99_ns = hist_percentile(c->c.runq_slots, CGS_HIST_SLOTS, 99,
						 c->runq_max_ns / unit) * unit;
		w->thr_pct = pct(c->c.thr_ns, interval_ns);
		w->thr_max_ns = c->thr_max_ns;
		w->thr_p99_ns = hist_percentile(c->c.thr_slots, CGS_HIST_SLOTS, 99,
						c->thr_max_ns / unit) * unit;
		w->inh_pct = pct(c->c.thr_inh_ns, interval_ns);
		const struct kstat_fig *f = kfigs ? idtab_find(kfigs, c->id) : NULL;
		if (f) {
			w->k = f->k;
			w->k_periods = f->g.periods;
			w->k_throttled = f->g.throttled;
			w->k_throttled_ns = f->g.throttled_ns;
			w->k_bursts = f->g.bursts;
			w->k_burst_ns = f->g.burst_ns;
		}
		w->quota_used_pct = kstat_quota_used_pct(&w->k, c->c.oncpu_ns, interval_ns);
		/* d->pre is sorted by victim, as d->cg by id: walk both together. */
		while (pi < d->npre && d->pre[pi].victim < c->id)
			pi++;
		for (; pi < d->npre && d->pre[pi].victim == c->id; pi++)
			preemptors_add(w->pre, &w->npre, d->pre[pi].preemptor, d->pre[pi].count, NULL);
	}
	return 0;
}

static void resolve_row(struct row *w, struct cgfs *fs)
{
	const char *last;

	if (w->resolved)
		return;
	w->resolved = true;
	/* A group's row has its path already (groups_label). */
	if (!w->path && !(w->path = cgfs_path(fs, w->id, true, &last))) {
		w->removed = true;
		w->path = last;
	}
	w->who = cgfs_who(fs, w->id);
	if (w->s->thr_inh_by) {
		w->inh_path = cgfs_path(fs, w->s->thr_inh_by, false, NULL);
		w->inh_who = cgfs_who(fs, w->s->thr_inh_by);
	}
	for (int k = 0; k < w->npre; k++) {
		w->pre[k].path = cgfs_path(fs, w->pre[k].id, false, NULL);
		w->pre[k].who = cgfs_who(fs, w->pre[k].id);
	}
	if (w->why)
		why_resolve(w->why, fs);
}

int report_why(struct report *r)
{
	const struct snapshot *d = r->d;
	size_t pi = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct row *w = &r->rows[i];
		struct why_named named[WHY_NAMED_MAX];
		uint64_t inside = 0;
		int nn = 0;

		/* The preemptions are matched by a walk in id order: rows sorted otherwise would lose them. */
		if (i && w->id < r->rows[i - 1].id)
			return -EINVAL;
		if (!(w->why = malloc(sizeof(*w->why))))
			return -ENOMEM;
		/* Rows are in id order until sorted, as d->pre by victim. */
		while (pi < d->npre && d->pre[pi].victim < w->id)
			pi++;
		for (; pi < d->npre && d->pre[pi].victim == w->id; pi++)
			if (d->pre[pi].preemptor == w->id) /* --group-by: behind another member */
				inside += d->pre[pi].behind_ns;
			else if (d->pre[pi].behind_ns)
				why_named_add(named, &nn, d->pre[pi].preemptor, d->pre[pi].behind_ns);
		why_build(w->why, &w->s->c, w->s->thr_inh_by, named, nn, inside, r->interval_ns);
	}
	return 0;
}

void report_resolve(struct report *r, struct cgfs *fs, size_t limit)
{
	size_t n = limit && limit < r->n ? limit : r->n;

	for (size_t i = 0; i < n; i++) {
		/* Sorted rows' samples lie in the maps' order: the one it reads, a few rows ahead. */
		if (i + PREFETCH_AHEAD < n)
			__builtin_prefetch(&r->rows[i + PREFETCH_AHEAD].s->thr_inh_by);
		resolve_row(&r->rows[i], fs);
	}
}

/* The sort key of a row: larger first. */
static double key_of(const struct row *w, enum sort_key k)
{
	switch (k) {
	case SORT_CPU: return w->cpu_pct;
	case SORT_P50: return w->runq_p50_ns;
	case SORT_P99: return w->runq_p99_ns;
	case SORT_MAX: return w->runq_max_ns;
	case SORT_WAKEUPS: return w->s->c.wakeups;
	case SORT_VOL: return w->s->c.sw_vol;
	case SORT_INVOL: return w->s->c.sw_invol;
	case SORT_THR: return w->thr_pct + w->inh_pct;
	case SORT_PATH: break;
	}
	return 0;
}

/* Sort small (key, row) pairs, not the rows themselves, which are hundreds of bytes. */
struct sort_ent {
	double v;
	uint64_t id;
	const char *path;
	size_t i;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct sort_ent *x = a, *y = b;

	if (x->path) /* SORT_PATH: every entry has one ("~" for none), resolved first */
		return strcmp(x->path, y->path);
	/* Largest first; ties by id so output is stable. */
	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static inline bool ent_before(const struct sort_ent *x, const struct sort_ent *y)
{
	return cmp_ent(x, y) < 0;
}

MSORT_DEFINE(sort_ents, struct sort_ent, ent_before)

static void swap_ent(struct sort_ent *a, struct sort_ent *b)
{
	struct sort_ent t = *a;

	*a = *b;
	*b = t;
}

/* Move the k entries that sort first to e[0..k-1], in no order (quickselect). */
static void select_first(struct sort_ent *e, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* the k-th is somewhere in [lo, hi) */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2, store = lo;
		swap_ent(&e[mid], &e[hi - 1]);
		for (size_t i = lo; i < hi - 1; i++)
			if (cmp_ent(&e[i], &e[hi - 1]) < 0)
				swap_ent(&e[i], &e[store++]);
		swap_ent(&e[store], &e[hi - 1]);
		if (store == k || store + 1 == k)
			return;
		if (store > k)
			hi = store;
		else
			lo = store + 1;
	}
}

void report_sort(struct report *r, struct cgfs *fs, enum sort_key k, size_t first)
{
	struct sort_ent *e = malloc((r->n ? 2 * r->n : 1) * sizeof(*e));
	struct row *t;

	if (k == SORT_PATH)
		report_resolve(r, fs, 0);
	if (!e)
		return; /* out of memory: unsorted rather than nothing */
	for (size_t i = 0; i < r->n; i++)
		e[i] = (struct sort_ent){ key_of(&r->rows[i], k), r->rows[i].id,
					  k == SORT_PATH ? (r->rows[i].path ? r->rows[i].path : "~") : NULL, i };
	/* A table of the top rows needs only those rows in order: select them, then sort only them. */
	size_t n = first && first < r->n && k != SORT_PATH ? first : r->n;
	if (n < r->n)
		select_first(e, r->n, n);
	sort_ents(e, e + r->n, n);
	/*
	 * Copy the rows in order into the second array, then swap the two.
	 * Both arrays are kept for the next refresh (report_rebuild), so a
	 * refresh allocates neither. The copy writes memory in order; a
	 * permutation in place would write each large row at a random place.
	 */
	if (!r->spare)
		r->spare = malloc((r->cap > r->n ? r->cap : r->n ? r->n : 1) * sizeof(*r->spare));
	if (!r->spare)
		goto out; /* out of memory: unsorted */
	for (size_t i = 0; i < r->n; i++)
		r->spare[i] = r->rows[e[i].i];
	t = r->rows;
	r->rows = r->spare;
	r->spare = t;
	if (r->cap < r->n)
		r->cap = r->n;
out:
	free(e);
}

void report_free(struct report *r)
{
	for (size_t i = 0; r->rows && i < r->n; i++)
		free(r->rows[i].why);
	free(r->rows);
	free(r->spare);
	memset(r, 0, sizeof(*r));
}

const char *row_name(const struct row *w, char *buf, size_t len)
{
	char esc[4 * PATH_MAX];

	if (!w->path)
		snprintf(buf, len, "(removed, id %llu)", (unsigned long long)w->id);
	else
		snprintf(buf, len, "%s%s", text_escape(w->path, esc, sizeof(esc)), w->removed ? " (removed)" : "");
	return buf;
}

const char *clip(const char *s, char *buf, size_t width)
{
	size_t l = strlen(s);

	if (l <= width)
		return s;
	snprintf(buf, width + 1, "..%s", s + l - (width - 2));
	return buf;
}

const char *clip_end(const char *s, char *buf, size_t width)
{
	if (strlen(s) <= width)
		return s;
	snprintf(buf, width + 1, "%s", s);
	if (width > 2)
		memcpy(buf + width - 2, "..", 2);
	return buf;
}

/* For text: who it is when the path says (a pod, a container, a unit), else the path; escaped. */
static const char *name_or_id(const char *path, const struct cgname *who, uint64_t id, char *buf, size_t len)
{
	if (who_text(who, buf, len))
		return buf;
	if (path)
		return text_escape(path, buf, len);
	snprintf(buf, len, "(id %llu)", (unsigned long long)id);
	return buf;
}

/* A counter's column (CG_COUNTERS): as wide as its title and the space before it. */
static int column_width(size_t k)
{
	return (int)strlen(cg_counter_defs[k].column) + 1;
}

const char *row_who(const struct row *w, char *buf, size_t len)
{
	return who_text(w->who, buf, len);
}

void report_table(FILE *f, const struct report *r, size_t limit)
{
	size_t width = 6, wwho = 0, n = limit && limit < r->n ? limit : r->n;
	char name[PATH_MAX + 32], clipbuf[PATH_MAX], a[16], b[16], c[16], t[16], q[16];
	char notes[2 * PATH_MAX + 64], idb[PATH_MAX], who[4 * CGNAME_SHORT_MAX];

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(row_name(&r->rows[i], name, sizeof(name)));
		if (l > width)
			width = l;
		if (row_who(&r->rows[i], who, sizeof(who)) && (l = strlen(who)) > wwho)
			wwho = l < 3 ? 3 : l;
	}
	if (width > 40)
		width = 40;
	if (wwho > 56) /* "pod <uid>/<id12>" is 53 */
		wwho = 56;
	fprintf(f, "%-*s", (int)width, "CGROUP");
	/* WHO only where some row has one: a host without units or containers sees no empty column. */
	if (wwho)
		fprintf(f, " %-*s", (int)wwho, "WHO");
	fprintf(f, " %6s %9s %9s %9s", "CPU%", "RUNQ_P50", "RUNQ_P99", "RUNQ_MAX");
	for (size_t k = 0; k < CG_NCOUNTERS; k++)
		if (cg_counter_defs[k].column)
			fprintf(f, " %*s", column_width(k), cg_counter_defs[k].column);
	fprintf(f, " %6s %5s %9s %6s  %s\n", "THR%", "THR#", "THR_P99", "QUOTA%", "NOTES");
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &r->rows[i];
		const struct cg_counters *k = &w->s->c;
		size_t o = 0;

		notes[0] = 0;
		if (w->npre)
			o += snprintf(notes + o, sizeof(notes) - o, "preempted by %s (%llu)",
				      clip(name_or_id(w->pre[0].path, w->pre[0].who, w->pre[0].id, idb, sizeof(idb)),
					   clipbuf, 56), /* "pod <uid>/<id12>" whole */
				      (unsigned long long)w->pre[0].count);
		if (w->inh_pct > 0 && o < sizeof(notes))
			o += snprintf(notes + o, sizeof(notes) - o, "%sheld %.0f%% by %s's quota",
				      o ? "; " : "", w->inh_pct,
				      name_or_id(w->inh_path, w->inh_who, w->s->thr_inh_by, idb, sizeof(idb)));
		if (w->quota_used_pct >= 0)
			snprintf(q, sizeof(q), "%.0f", w->quota_used_pct);
		else
			snprintf(q, sizeof(q), "-");
		fprintf(f, "%-*s", (int)width, clip(row_name(w, name, sizeof(name)), clipbuf, width));
		if (wwho) {
			const char *x = row_who(w, who, sizeof(who));
			fprintf(f, " %-*s", (int)wwho, clip_end(x ? x : "-", clipbuf, wwho));
		}
		fprintf(f, " %6.1f %9s %9s %9s", w->cpu_pct,
			k->runq_count ? fmt_duration(a, sizeof(a), w->runq_p50_ns) : "-",
			k->runq_count ? fmt_duration(b, sizeof(b), w->runq_p99_ns) : "-",
			k->runq_count ? fmt_duration(c, sizeof(c), w->runq_max_ns) : "-");
		for (size_t x = 0; x < CG_NCOUNTERS; x++)
			if (cg_counter_defs[x].column)
				fprintf(f, " %*llu", column_width(x),
					(unsigned long long)cg_counter(k, &cg_counter_defs[x]));
		fprintf(f, " %6.1f %5llu %9s %6s  %s\n", w->thr_pct, (unsigned long long)k->thr_count,
			k->thr_count ? fmt_duration(t, sizeof(t), w->thr_p99_ns) : "-", q,
			notes[0] ? notes : "-");
	}
}

int report_periods(struct report *r, const struct cgs_episode *e, size_t n)
{
	for (size_t i = 0; i < r->n; i++) {
		struct row *w = &r->rows[i];
		const struct period_input in = {
			.id = w->id, .period_ns = w->k.period_us * 1000, .end_ns = w->k.period_end_ns,
			.quota_ns = w->k.ok && w->k.quota_us > 0 ? (uint64_t)w->k.quota_us * 1000 : 0,
			.use_ns = w->s->c.oncpu_ns, .window_ns = r->interval_ns,
		};
		if (!w->members && periods_of(e, n, &in, &w->per))
			return -ENOMEM;
	}
	return 0;
}

void report_throttle_lines(FILE *f, const struct report *r)
{
	char name[PATH_MAX + 32], a[16], b[16], dur[16];

	/* A cgroup's first line, then a short indented line per fact. */
	for (size_t i = 0; i < r->n; i++) {
		const struct row *w = &r->rows[i];
		if (!w->k_throttled && !w->s->c.thr_count)
			continue;
		fprintf(f, "%s: throttled %s in %llu episodes (%.1f%% of the time)\n",
			row_name(w, name, sizeof(name)), fmt_duration(dur, sizeof(dur), w->s->c.thr_ns),
			(unsigned long long)w->s->c.thr_count, w->thr_pct);
		if (w->k.ok && w->k_periods)
			fprintf(f, "  kernel: throttled in %llu of %llu periods, %s\n", (unsigned long long)w->k_throttled,
				(unsigned long long)w->k_periods, fmt_duration(a, sizeof(a), w->k_throttled_ns));
		if (w->quota_used_pct >= 0)
			fprintf(f, "  quota: %.0f%% used of %s per %s\n", w->quota_used_pct,
				fmt_duration(a, sizeof(a), w->k.quota_us * 1000),
				fmt_duration(b, sizeof(b), w->k.period_us * 1000));
		if (w->per.known && w->per.throttled) {
			fprintf(f, "  periods: %llu throttled, up to %llu in a row; quota out at %s p50, %s p99\n",
				(unsigned long long)w->per.throttled, (unsigned long long)w->per.longest_run,
				fmt_duration(a, sizeof(a), w->per.ran_out_p50_ns),
				fmt_duration(b, sizeof(b), w->per.ran_out_p99_ns));
			if (w->per.underused)
				fprintf(f, "  bursty: it used under half its quota on average\n");
		}
		if (w->k.has_bursts && w->k_bursts)
			fprintf(f, "  burst allowance: ran on it in %llu periods, %s\n", (unsigned long long)w->k_bursts,
				fmt_duration(a, sizeof(a), w->k_burst_ns));
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

void report_why_lines(FILE *f, const struct report *r)
{
	char name[PATH_MAX + 32];
	bool any = false;

	for (size_t i = 0; i < r->n; i++) {
		const struct row *w = &r->rows[i];
		if (!w->why || !w->why->total_ns)
			continue;
		if (!any)
			fputs("\nWhy they waited (what ran instead, or the quota that held them)\n", f);
		any = true;
		why_print(f, row_name(w, name, sizeof(name)), w->why);
	}
}

void why_resolve(struct why *w, struct cgfs *fs)
{
	for (int k = 0; k < w->n; k++) {
		struct why_part *p = &w->p[k];
		if (p->cause == WHY_NAMED || p->cause == WHY_ANCESTOR_QUOTA) {
			p->path = cgfs_path(fs, p->id, false, NULL);
			p->who = cgfs_who(fs, p->id);
		}
	}
}
