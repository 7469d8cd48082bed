// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched watch: the flight recorder's state, its triggers and its incidents (watch.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "kernel/psi.h"
#include "lib/util.h"
#include "report/periods.h"
#include "session/refresh.h"
#include "session/session.h"
#include "trace/tracer.h"
#include "watch/watch.h"

struct watch_last {
	uint64_t id;
	uint64_t at[WATCH_MAX_TRIGGERS];  /* when each trigger last began an incident of it (0: never) */
	uint64_t on[WATCH_MAX_TRIGGERS];  /* the end of the last interval it broke each trigger's limit in */
};

/* A cgroup's periods: the most in a row seen in the interval, through the tracker's sink. */
struct per_state {
	struct period_track t;
	struct period_sink sink;
	uint64_t most;          /* the longest run reached since the last interval's check */
};
struct watch_per {
	uint64_t id;
	struct per_state *p;
	uint64_t seen;          /* the end of the last interval its row came in */
};

/* Cgroups not seen for this long are forgotten (a host's churn would grow the tables forever). */
#define WATCH_FORGET_NS (120 * 1000000000ULL)

static void on_episode(void *ctx, const struct cgs_episode *e)
{
	if (episode_timed(e)) /* the others count in the periods only (periods()) */
		history_add_episode(&((struct watch *)ctx)->h, e);
}

static void on_wait(void *ctx, const struct cgs_wait *x)
{
	history_add_wait(&((struct watch *)ctx)->h, x);
}

int watch_open(struct watch *w, const struct watch_cfg *cfg, struct session *s, const char *dir, unsigned max,
	       const char **why)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->cfg = *cfg;
	w->s = s;
	w->last = (struct idtab)IDTAB_INIT(struct watch_last);
	w->per = (struct idtab)IDTAB_INIT(struct watch_per);
	history_init(&w->h, cfg->memory);
	if ((err = incident_dir_open(&w->dir, dir, max, why)))
		return err;
	tracer_set_tap(&s->tr, &(struct tracer_tap){ on_episode, on_wait, w });
	return 0;
}

void watch_close(struct watch *w)
{
	if (w->s)
		tracer_set_tap(&w->s->tr, &(struct tracer_tap){});
	for (size_t i = 0; i < w->per.cap; i++) {
		struct watch_per *p = idtab_at(&w->per, i);
		if (p)
			free(p->p);
	}
	idtab_free(&w->per);
	idtab_free(&w->last);
	history_free(&w->h);
	incident_dir_close(&w->dir);
}

static void on_period(void *ctx, uint64_t start_ns, uint64_t end_ns, uint64_t ran_out_ns, uint64_t run)
{
	struct per_state *p = ctx;

	(void)start_ns, (void)end_ns, (void)ran_out_ns;
	if (run > p->most)
		p->most = run;
}

static int cmp_ep(const void *a, const void *b)
{
	const struct cgs_episode *x = a, *y = b;

	return x->cgid < y->cgid ? -1 : x->cgid > y->cgid;
}

/* Each limited cgroup's throttled periods in a row (its grid from the rows), through the interval's episodes. */
static void periods(struct watch *w, const struct report *r, struct cgs_episode *e, size_t n, uint64_t now,
		    const struct cg_pending *pend)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct row *x = &r->rows[i];
		struct watch_per *p;
		bool fresh = false;

		if (x->members || !x->k.ok || x->k.quota_us <= 0 || !x->k.period_end_ns)
			continue;
		if (!(p = idtab_put(&w->per, x->id, &fresh)))
			continue;
		if (fresh && !(p->p = calloc(1, sizeof(*p->p)))) {
			idtab_del(&w->per, x->id);
			continue;
		}
		if (fresh) {
			p->p->sink = (struct period_sink){ on_period, NULL, p->p };
			p->p->t.sink = &p->p->sink;
		}
		p->seen = now;
		period_track_grid(&p->p->t, x->k.period_us * 1000, x->k.period_end_ns);
	}
	if (n)
		qsort(e, n, sizeof(*e), cmp_ep);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && e[j].cgid == e[i].cgid; j++)
			;
		struct watch_per *p = idtab_find(&w->per, e[i].cgid);
		if (p)
			period_track_add(&p->p->t, &e[i], j - i);
	}
	for (size_t i = 0; i < w->per.cap; i++) {
		struct watch_per *p = idtab_at(&w->per, i);
		if (p)
			period_track_close(&p->p->t, now, cg_pending_has(pend, p->id));
	}
}

/* What a row measured, in the triggers' terms. */
static void figures(struct watch *w, const struct row *x, uint64_t interval_ns, struct trig_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->p99_ns = x->runq_p99_ns;
	f->has_runq = x->s->c.runq_count > 0;
	f->thr_pct = x->thr_pct;
	struct watch_per *p = idtab_find(&w->per, x->id);
	if (p && p->p->t.period_ns) {
		f->has_run = true;
		f->run = p->p->most > p->p->t.run ? p->p->most : p->p->t.run;
	}
	uint64_t ns;
	bool host = false;
	if (w->psi && psi_cg_ns(w->psi, &w->s->fs, x->id, false, &ns, &host) && !host && interval_ns) {
		f->has_psi = true;
		f->psi_some_pct = 100.0 * ns / interval_ns;
	}
	if (x->why && x->why->total_ns) {
		uint64_t most = 0;
		for (int k = 0; k < x->why->n; k++)
			if (x->why->p[k].cause == WHY_NAMED && x->why->p[k].ns > most)
				most = x->why->p[k].ns;
		f->has_why = true;
		f->behind_one_pct = 100.0 * most / x->why->total_ns;
	}
}

void watch_say(const char *line)
{
	fprintf(stderr, "cgsched watch: %s\n", line);
	if (!getenv("JOURNAL_STREAM"))
		syslog(LOG_WARNING, "%s", line);
}

static void begin(struct watch *w, int trig, struct watch_last *l, const char *path, double value, uint64_t at)
{
	uint64_t id = l ? l->id : 0;

	if (trig >= 0) {
		if (l->at[trig] && at - l->at[trig] < w->cfg.rate_ns) {
			w->suppressed++;
			return;
		}
	}
	if (w->npend == WATCH_PENDING_MAX) {
		w->skipped++;
		return;
	}
	if (l)
		l->at[trig] = at;
	struct watch_fired *p = &w->pend[w->npend++];
	memset(p, 0, sizeof(*p));
	p->trig = trig;
	p->id = id;
	snprintf(p->path, sizeof(p->path), "%s", path ? path : "/");
	p->value = value;
	p->at_ns = at;
	p->due_ns = trig >= 0 ? at + w->cfg.after_ns : at;
	p->at_wall = time(NULL);
	w->fired++;
	if (trig >= 0) {
		char v[48], after[16], line[PATH_MAX + 512];
		const struct trigger *t = &w->cfg.trig[trig];
		snprintf(line, sizeof(line), "fired: %s: %s, measured %s; recording %s more", p->path, t->text,
			 trigger_value_text(t, value, v, sizeof(v)), fmt_duration(after, sizeof(after), w->cfg.after_ns));
		fprintf(stderr, "cgsched watch: %s\n", line);
	}
}

/*
 * What is kept per cgroup outside the history: each trigger's last firing
 * (for the rate limit) and a limited cgroup's period tracker. A cgroup
 * neither within a rate limit nor seen for WATCH_FORGET_NS is forgotten.
 */
struct sweep_at {
	struct watch *w;
	uint64_t now;
};

static bool last_gone(void *ctx, void *e)
{
	const struct sweep_at *a = ctx;
	const struct watch_last *l = e;

	for (size_t k = 0; k < a->w->cfg.ntrig; k++)
		if ((l->at[k] && a->now - l->at[k] < a->w->cfg.rate_ns) || a->now - l->on[k] < WATCH_FORGET_NS)
			return false;
	return true;
}

static bool per_gone(void *ctx, void *e)
{
	const struct sweep_at *a = ctx;
	struct watch_per *p = e;

	if (a->now - p->seen <= WATCH_FORGET_NS)
		return false;
	free(p->p);
	return true;
}

static void sweep(struct watch *w, uint64_t now)
{
	struct sweep_at a = { w, now };

	/* Out of memory: the next sweep's. */
	idtab_sweep(&w->last, last_gone, &a);
	idtab_sweep(&w->per, per_gone, &a);
}

void watch_interval(struct watch *w, struct refresh *f, const struct cgs_episode *e, size_t n,
		    const struct cg_pending *pend)
{
	uint64_t t1 = f->d.t_ns, t0 = t1 - f->r.interval_ns;
	struct cgs_episode *copy = n ? malloc(n * sizeof(*copy)) : NULL;

	history_add(&w->h, &f->d, &f->kfigs, t0, t1);
	if (t1 > w->cfg.keep_ns)
		history_forget_before(&w->h, t1 - w->cfg.keep_ns);
	history_trim(&w->h);
	if (copy)
		memcpy(copy, e, n * sizeof(*copy));
	periods(w, &f->r, copy, copy ? n : 0, t1, pend);
	free(copy);
	if (w->psi)
		psi_track_host(w->psi);
	for (size_t i = 0; i < f->r.n; i++) {
		const struct row *x = &f->r.rows[i];
		struct trig_figures fig;
		bool got = false;

		if (x->members)
			continue;
		for (size_t k = 0; k < w->cfg.ntrig; k++) {
			const struct trigger *t = &w->cfg.trig[k];
			double v;
			if (!trigger_selects(t, x->path, x->who))
				continue;
			if (!got) {
				figures(w, x, f->r.interval_ns, &fig);
				got = true;
			}
			if (!trigger_fires(t, &fig, &v))
				continue;
			/*
			 * A trigger fires when its limit is broken after an interval
			 * that kept it, or showed no row. So a streak of bad intervals
			 * is one trouble, not one per interval. The rate limit is for
			 * troubles that come back.
			 */
			bool fresh;
			struct watch_last *l = idtab_put(&w->last, x->id, &fresh);
			if (!l)
				continue;
			bool edge = !w->last_t_ns || l->on[k] != w->last_t_ns;
			l->on[k] = t1;
			if (edge)
				begin(w, (int)k, l, x->path, v, t1);
		}
	}
	for (size_t i = 0; i < w->per.cap; i++) {
		struct watch_per *p = idtab_at(&w->per, i);
		if (p)
			p->p->most = 0;
	}
	if (++w->intervals % 64 == 0)
		sweep(w, t1);
	w->last_t_ns = t1;
}

void watch_ask(struct watch *w)
{
	begin(w, -1, NULL, "/", 0, w->last_t_ns ? w->last_t_ns : now_ns());
}

void watch_status(const struct watch *w, char *buf, size_t n)
{
	uint64_t t0, t1, span = 0;

	if (history_count(&w->h)) {
		history_bounds(&w->h, 0, &t0, &t1);
		uint64_t a = t0;
		history_bounds(&w->h, history_count(&w->h) - 1, &t0, &t1);
		span = t1 - a;
	}
	char d[16];
	snprintf(buf, n,
		 "%llu incidents written in %s, %llu fired, %llu in a rate limit, %llu beyond %d under way, "
		 "%llu removed for --max-incidents, %llu failed, %llu half-written ones of an earlier run removed; "
		 "kept %zu intervals (%s), %zu bytes of %llu; let go for the bound: %llu intervals, %llu episodes, %llu waits",
		 (unsigned long long)w->dir.written, w->dir.dir ? w->dir.dir : "?", (unsigned long long)w->fired,
		 (unsigned long long)w->suppressed, (unsigned long long)w->skipped, WATCH_PENDING_MAX,
		 (unsigned long long)w->dir.removed, (unsigned long long)w->dir.failed, (unsigned long long)w->dir.stale,
		 history_count(&w->h), fmt_duration(d, sizeof(d), span), w->h.bytes, (unsigned long long)w->h.budget,
		 (unsigned long long)w->h.dropped_iv, (unsigned long long)w->h.dropped_ep,
		 (unsigned long long)w->h.dropped_wt);
}
