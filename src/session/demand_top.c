// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* top --demand: CPU demand period by period of every cgroup with a quota (demand_top.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "figures/kstat_src.h"
#include "lib/util.h"
#include "report/report.h"
#include "session/demand_top.h"
#include "session/session.h"

/* Quotas nested deeper than this above one cgroup: the deepest this many kept. */
#define DT_NEST 4
#define DT_STEP_MAX_NS 10000000ULL
#define DT_STEP_MIN_NS 1000000ULL

struct dt_cg {
	char *path;
	uint64_t period_ns, end_ns;   /* its grid: a period ends at end_ns */
	uint64_t u, w;                /* its subtree's sums at this read */
	uint64_t u0, w0;              /* ...and at the last */
	bool primed;                  /* u0, w0 hold a read */
	bool open, whole;             /* a period is being summed; it began with the first step in it */
	bool quiet;                   /* no use and no wait ended since quiet_ns (a read's time) */
	uint64_t quiet_ns;
	bool pend, pend_whole;        /* the last period before cur ended quiet: kept once the stretch ends */
	uint64_t pend_ns;             /* ...its demand so far */
	int64_t cur;                  /* its index on the grid */
	uint64_t cur_ns;              /* its demand so far */
	uint64_t *v;                  /* the interval's whole periods' demand (us) */
	size_t n, cap;
	bool seen;                    /* among this interval's rows with a quota */
};
struct dt_ref {
	uint64_t id;
	struct dt_cg *c;
};
struct dt_anc {
	uint64_t id;
	unsigned n;
	struct dt_cg *c[DT_NEST];
};

void demand_top_start(struct demand_top *d, struct session *s)
{
	memset(d, 0, sizeof(*d));
	d->s = s;
	d->cgs = (struct idtab)IDTAB_INIT(struct dt_ref);
	d->anc = (struct idtab)IDTAB_INIT(struct dt_anc);
}

/* Whether path is base or below it. */
static bool under(const char *path, const char *base)
{
	size_t n = strlen(base);

	if (!strcmp(base, "/"))
		return true;
	return !strncmp(path, base, n) && (path[n] == '\0' || path[n] == '/');
}

/* The kept cgroups a traced cgroup's figures count for: it and those above it. */
static const struct dt_anc *ancestors(struct demand_top *d, uint64_t id)
{
	struct dt_anc *a;
	bool fresh = false;

	if (!(a = idtab_put(&d->anc, id, &fresh)))
		return NULL;
	if (!fresh)
		return a;
	const char *path = session_cgroup_name(d->s, id);
	for (size_t i = 0; path && i < d->cgs.cap; i++) {
		struct dt_ref *r = idtab_at(&d->cgs, i);
		if (r && under(path, r->c->path) && a->n < DT_NEST)
			a->c[a->n++] = r->c;
	}
	return a;
}

/* Where a time falls on a grid: the index of its period (0: the one ending at end_ns). */
static int64_t period_at(uint64_t t, uint64_t period_ns, uint64_t end_ns)
{
	int64_t P = (int64_t)period_ns, rel = (int64_t)(t - end_ns) + P;

	return rel >= 0 ? rel / P : -((-rel + P - 1) / P);
}

static void keep(struct dt_cg *c, uint64_t ns)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		uint64_t *v = realloc(c->v, cap * sizeof(*v));
		if (!v)
			return; /* out of memory: the period is left out (the interval says how many it has) */
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = ns / 1000;
}

/* The start of period p of c's grid (period_at's numbering). */
static int64_t period_start(const struct dt_cg *c, int64_t p)
{
	return (int64_t)c->end_ns + (p - 1) * (int64_t)c->period_ns;
}

/* The part of the waits dw, spread evenly over [from, now], that lies before t. */
static uint64_t waited_before(uint64_t dw, uint64_t from, uint64_t now, int64_t t)
{
	int64_t before = t - (int64_t)from;

	if (before <= 0 || now <= from)
		return 0;
	return before >= (int64_t)(now - from) ? dw : (uint64_t)((double)dw * (double)before / (double)(now - from));
}

static void pend_keep(struct dt_cg *c)
{
	if (c->pend && c->pend_whole)
		keep(c, c->pend_ns);
	c->pend = false;
}

/*
 * One step [last, now] of a cgroup. Its on-CPU time counts in the period its
 * middle falls in. The BPF side adds a throttled wait when it ends. So the
 * waits seen in this step were waited before its end: over the quiet
 * stretch since the group last ran or saw a wait end, as far as the figures
 * show. They are spread evenly over that stretch and split at the periods'
 * ends in it. A period that ends in a quiet stretch is kept only when the
 * stretch ends, so that it gets its part. Most waits end just after a
 * refill at a period's end, when their task runs again. That may be
 * milliseconds later, if another task (this reader) has the CPU. By the
 * step's middle alone, a whole wait would then count in the next period.
 */
static void step(struct dt_cg *c, uint64_t last, uint64_t now)
{
	int64_t p = period_at(last + (now - last) / 2, c->period_ns, c->end_ns);
	uint64_t du = c->u > c->u0 ? c->u - c->u0 : 0, dw = c->w > c->w0 ? c->w - c->w0 : 0;
	uint64_t from = c->quiet ? c->quiet_ns : last, pend_part = 0, cur_part = dw;
	bool still = !du && !dw;

	if (c->pend && !still) {
		pend_part = waited_before(dw, from, now, period_start(c, c->cur));
		c->pend_ns += pend_part;
		pend_keep(c);
		cur_part = dw - pend_part;
	}
	if (!c->open || p != c->cur) {
		if (c->open) {
			uint64_t b = waited_before(dw, from, now, period_start(c, p));
			b = b > pend_part ? b - pend_part : 0;
			c->cur_ns += b;
			cur_part -= b < cur_part ? b : cur_part;
			pend_keep(c);
			if (still) {
				c->pend = true;
				c->pend_whole = c->whole;
				c->pend_ns = c->cur_ns;
			} else if (c->whole) {
				keep(c, c->cur_ns);
			}
		}
		/* The first period after the start (or a new grid) began before the first step: not whole. */
		c->whole = c->open && p > c->cur;
		c->open = true;
		c->cur = p;
		c->cur_ns = 0;
	}
	c->cur_ns += du + cur_part;
	if (still && !c->quiet)
		c->quiet_ns = last;
	c->quiet = still;
}

static void read_step(struct demand_top *d, uint64_t now)
{
	if (snapshot_take(&d->s->tr, &d->snap, &(struct snapshot_how){ .light = true }))
		return;
	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dt_ref *r = idtab_at(&d->cgs, i);
		if (r)
			r->c->u = r->c->w = 0;
	}
	for (size_t i = 0; i < d->snap.n; i++) {
		const struct cg_sample *x = &d->snap.cg[i];
		const struct dt_anc *a = ancestors(d, x->id);
		for (unsigned k = 0; a && k < a->n; k++) {
			a->c[k]->u += x->c.oncpu_ns;
			a->c[k]->w += x->c.thr_wait_ns;
		}
	}
	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dt_ref *r = idtab_at(&d->cgs, i);
		if (!r)
			continue;
		if (r->c->primed && d->last_ns)
			step(r->c, d->last_ns, now);
		r->c->u0 = r->c->u;
		r->c->w0 = r->c->w;
		r->c->primed = true;
	}
	d->last_ns = now;
}

int demand_top_tick(void *ctx, uint64_t now)
{
	struct demand_top *d = ctx;

	if (!d->step_ns)
		return 200;
	if (now < d->next_ns) {
		uint64_t left = d->next_ns - now;
		if (left > 2000000ULL)
			return (int)((left - 1000000ULL) / 1000000ULL);
		/* The last stretch slept exactly: a poll's timeout is whole milliseconds. */
		struct timespec ts = { d->next_ns / 1000000000ULL, d->next_ns % 1000000000ULL };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		now = now_ns();
	}
	uint64_t late = d->next_ns ? (now - d->next_ns) / d->step_ns : 0;
	d->late += late;
	read_step(d, now);
	d->next_ns = (d->next_ns ? d->next_ns : now) + (late + 1) * d->step_ns;
	uint64_t left = d->next_ns > now ? d->next_ns - now : 0;
	return left > 2000000ULL ? (int)((left - 1000000ULL) / 1000000ULL) : 0;
}

static void cg_free(struct dt_cg *c)
{
	free(c->path);
	free(c->v);
	free(c);
}

/* Keep (or go on keeping) a cgroup with a quota and grid; false when it has none (or out of memory). */
static bool track(struct demand_top *d, uint64_t id, const char *path, const struct kstat *k, bool *changed)
{
	struct dt_ref *ref;
	bool fresh = false;

	if (!path || !k->ok || k->quota_us <= 0 || !k->period_end_ns || !k->period_us)
		return false;
	if (!(ref = idtab_put(&d->cgs, id, &fresh)))
		return false;
	if (fresh) {
		if (!(ref->c = calloc(1, sizeof(*ref->c))) || !(ref->c->path = strdup(path))) {
			free(ref->c);
			idtab_del(&d->cgs, id);
			return false;
		}
		*changed = true;
	}
	struct dt_cg *c = ref->c;
	c->seen = true;
	uint64_t P = k->period_us * 1000;
	uint64_t apart = c->end_ns > k->period_end_ns ? c->end_ns - k->period_end_ns : k->period_end_ns - c->end_ns;
	if (c->period_ns != P || apart % P) {
		c->open = false; /* a new grid: its periods begin afresh */
		c->pend = false;
		c->period_ns = P;
		c->end_ns = k->period_end_ns;
	}
	return true;
}

/* The shortest period kept, a tenth of it: the reads' step (0: none kept). */
static void set_step(struct demand_top *d)
{
	uint64_t step = DT_STEP_MAX_NS;

	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dt_ref *ref = idtab_at(&d->cgs, i);
		if (ref && ref->c->period_ns / 10 < step)
			step = ref->c->period_ns / 10;
	}
	d->step_ns = d->cgs.used ? (step < DT_STEP_MIN_NS ? DT_STEP_MIN_NS : step) : 0;
}

struct discover {
	struct demand_top *d;
	bool changed;
};

static void discover_one(void *ctx, uint64_t id, const char *path, const struct kstat *k)
{
	struct discover *x = ctx;

	track(x->d, id, path ? path : session_cgroup_name(x->d->s, id), k, &x->changed);
}

void demand_top_discover(struct demand_top *d)
{
	struct kstat_src ks;
	struct discover x = { d, false };

	/* The grids come with the iterator (figures/kstat.h); the files have none. */
	if (kstat_src_open(&ks, &d->s->fs, KSTAT_ITER))
		return;
	if (!kstat_src_refresh(&ks))
		kstat_src_all(&ks, discover_one, &x);
	kstat_src_close(&ks);
	if (x.changed)
		idtab_clear(&d->anc);
	set_step(d);
}

void demand_top_interval(struct demand_top *d, struct report *r)
{
	bool changed = false;

	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dt_ref *ref = idtab_at(&d->cgs, i);
		if (ref)
			ref->c->seen = false;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct row *w = &r->rows[i];

		if (w->members || !track(d, w->id, w->path, &w->k, &changed))
			continue;
		struct dt_cg *c = ((struct dt_ref *)idtab_find(&d->cgs, w->id))->c;
		/* The interval's whole periods. */
		w->dem = (struct demand_stats){ .known = c->primed, .period_us = c->period_ns / 1000, .late = d->late };
		demand_stats_of(c->v, c->n, &w->dem);
		c->n = 0;
	}
	/* Cgroups no longer limited, or not among the rows (gone, idle, filtered out): forgotten. */
	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dt_ref *ref = idtab_at(&d->cgs, i);
		if (ref && !ref->c->seen) {
			cg_free(ref->c);
			idtab_del(&d->cgs, ref->id);
			changed = true;
			i = (size_t)-1; /* entries move on a delete: from the start */
		}
	}
	if (changed)
		idtab_clear(&d->anc);
	set_step(d);
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].dem.known)
			r->rows[i].dem.step_us = d->step_ns / 1000;
}

void demand_top_free(struct demand_top *d)
{
	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dt_ref *ref = idtab_at(&d->cgs, i);
		if (ref)
			cg_free(ref->c);
	}
	idtab_free(&d->cgs);
	idtab_free(&d->anc);
	snapshot_free(&d->snap);
}
