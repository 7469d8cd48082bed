// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Throttling period by period (periods.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "report/periods.h"

struct hit {
	int64_t period;   /* its index on the grid, 0 at the period ending at end_ns */
	uint64_t offset;  /* ns from the period's start */
};

static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->period != y->period)
		return x->period < y->period ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Find the period that t falls in, and how far into it. The grid has periods of period_ns, one ending at end_ns. */
static struct hit place(uint64_t t, uint64_t period_ns, uint64_t end_ns)
{
	int64_t P = (int64_t)period_ns, rel = (int64_t)(t - end_ns) + P;
	int64_t p = rel >= 0 ? rel / P : -((-rel + P - 1) / P);

	return (struct hit){ .period = p, .offset = (uint64_t)(rel - p * P) };
}

/*
 * Find the periods of the grid in which an episode throttled its cgroup,
 * as the kernel counts them. At each refill, the period timer adds to
 * nr_throttled the periods since the last refill, if a cfs_rq of the group
 * is throttled then. So an episode counts in every period whose end it
 * spans. If it spans no end, it counts in the period it began in: runtime
 * came back inside the period, handed back by another CPU.
 *
 * An episode can span several ends in two cases. The deficit may exceed
 * a whole quota: a task was charged more than the quota before the tick
 * saw it. Or the refill came a period or more late, as when the host
 * holds off a vCPU. cpu.stat then counts the episode in each period.
 *
 * Returns how many periods in a row, at least 1. *first gets the first
 * one, with the episode's start as an offset into it. The cgroup was
 * throttled from the start of each of the others.
 */
#define SPAN_MAX 100000 /* 100 s of 1 ms periods (the kernel's shortest): longer is no episode */
static size_t span(const struct cgs_episode *e, uint64_t period_ns, uint64_t end_ns, struct hit *first)
{
	*first = place(e->start_ns, period_ns, end_ns);
	if (e->end_ns <= e->start_ns)
		return 1;
	int64_t last = place(e->end_ns, period_ns, end_ns).period - 1;
	if (last <= first->period)
		return 1;
	return (uint64_t)(last - first->period) + 1 > SPAN_MAX ? SPAN_MAX : (size_t)(last - first->period) + 1;
}

/*
 * Place the episodes of cgroup id (0: every one) in the periods that end
 * after from_ns (0: all), as the kernel's count from then on has them. An
 * episode that began before from_ns still counts in the periods whose
 * refills come after from_ns. Leaving it out would put the count short of
 * cpu.stat's. *out is malloc'd. Returns 0 or -ENOMEM.
 */
static int hits_of(const struct cgs_episode *e, size_t n, uint64_t id, uint64_t from_ns, uint64_t period_ns,
		   uint64_t end_ns, struct hit **out, size_t *nout)
{
	int64_t p0 = from_ns ? place(from_ns, period_ns, end_ns).period : INT64_MIN;
	struct hit f, *h = NULL;
	size_t nh = 0;

	for (size_t i = 0; i < n; i++)
		if (!id || e[i].cgid == id)
			nh += span(&e[i], period_ns, end_ns, &f);
	*out = NULL;
	*nout = 0;
	if (!nh)
		return 0;
	if (!(h = malloc(nh * sizeof(*h))))
		return -ENOMEM;
	nh = 0;
	for (size_t i = 0; i < n; i++) {
		if (id && e[i].cgid != id)
			continue;
		size_t k = span(&e[i], period_ns, end_ns, &f);
		if (f.period >= p0)
			h[nh++] = f;
		/* Throttled from the start of each later period: its quota ran out at 0. */
		for (size_t j = 1; j < k; j++)
			if (f.period + (int64_t)j >= p0)
				h[nh++] = (struct hit){ .period = f.period + (int64_t)j, .offset = 0 };
	}
	if (!nh)
		goto out;
	qsort(h, nh, sizeof(*h), cmp_hit);
	*out = h;
	*nout = nh;
	h = NULL;
out:
	free(h);
	return 0;
}

int periods_of(const struct cgs_episode *e, size_t n, const struct period_input *in, struct period_stats *out)
{
	struct hit *h = NULL;
	uint64_t *first = NULL, run = 0;
	size_t nh = 0, np = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!in->period_ns || !in->quota_ns || !in->end_ns)
		return 0;
	out->known = true;
	if (hits_of(e, n, in->id, 0, in->period_ns, in->end_ns, &h, &nh))
		return -ENOMEM;
	if (!nh)
		return 0;
	if (!(first = malloc(nh * sizeof(*first)))) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nh; i++) {
		if (i && h[i].period == h[i - 1].period)
			continue; /* another CPU's episode of a period counted: its earliest came first */
		run = i && h[i].period == h[i - 1].period + 1 ? run + 1 : 1;
		if (run > out->longest_run)
			out->longest_run = run;
		first[np++] = h[i].offset;
	}
	out->throttled = np;
	qsort(first, np, sizeof(*first), u64_cmp);
	out->ran_out_p50_ns = u64_rank(first, np, 50);
	out->ran_out_p99_ns = u64_rank(first, np, 99);
	/* Under half its quota on average, and throttled all the same: bursts outran it. */
	if (in->window_ns && (double)in->use_ns / in->window_ns < 0.5 * in->quota_ns / in->period_ns)
		out->underused = np;
out:
	free(h);
	free(first);
	return err;
}

const uint64_t period_ran_out_bounds_ns[PT_RAN_OUT_BOUNDS] = {
	5000000, 10000000, 20000000, 50000000, 100000000, 200000000, 500000000, 1000000000,
};
const uint64_t period_run_bounds[PT_RUN_BOUNDS] = { 1, 2, 3, 5, 10, 20, 50, 100 };

static unsigned bucket(const uint64_t *bounds, unsigned n, uint64_t v)
{
	unsigned i = 0;

	while (i < n && v > bounds[i])
		i++;
	return i;
}

/* Where period p of t's grid starts (ktime). */
static uint64_t period_start(const struct period_track *t, int64_t p)
{
	return t->end_ns + (uint64_t)((p - 1) * (int64_t)t->period_ns);
}

static void run_over(struct period_track *t)
{
	if (!t->run)
		return;
	if (t->sink && t->sink->run)
		t->sink->run(t->sink->ctx, period_start(t, t->last - (int64_t)t->run + 1), period_start(t, t->last + 1),
			     t->run);
	t->runs[bucket(period_run_bounds, PT_RUN_BOUNDS, t->run)]++;
	t->runs_sum += t->run;
	t->nruns++;
	t->run = 0;
}

void period_track_grid(struct period_track *t, uint64_t period_ns, uint64_t end_ns)
{
	/*
	 * Periods are numbered from the first expiry seen. A later expiry on
	 * the same grid, a whole number of periods away, changes nothing. A
	 * new length, or a moved grid, starts the numbering afresh.
	 */
	uint64_t apart = end_ns > t->end_ns ? end_ns - t->end_ns : t->end_ns - end_ns;

	if (t->period_ns == period_ns && period_ns && apart % period_ns == 0)
		return;
	if (t->period_ns) {
		run_over(t);
		t->any = false;
	}
	t->period_ns = period_ns;
	t->end_ns = end_ns;
}

int period_track_add(struct period_track *t, const struct cgs_episode *e, size_t n)
{
	struct hit *h;
	size_t m;

	if (!t->period_ns || !n)
		return 0;
	if (hits_of(e, n, 0, t->from_ns, t->period_ns, t->end_ns, &h, &m))
		return -ENOMEM;
	for (size_t i = 0; i < m; i++) {
		if (t->any && h[i].period <= t->last)
			continue; /* counted already, at its earliest episode (or too late to place) */
		if (!(t->any && h[i].period == t->last + 1))
			run_over(t);
		t->run++;
		t->any = true;
		t->last = h[i].period;
		t->throttled++;
		t->ran_out[bucket(period_ran_out_bounds_ns, PT_RAN_OUT_BOUNDS, h[i].offset)]++;
		t->ran_out_sum_ns += h[i].offset;
		if (t->sink && t->sink->period)
			t->sink->period(t->sink->ctx, period_start(t, h[i].period), period_start(t, h[i].period + 1),
					h[i].offset, t->run);
	}
	free(h);
	return 0;
}

void period_track_close(struct period_track *t, uint64_t now_ns, bool pending)
{
	/*
	 * The run is over once the period after its last throttled period has
	 * ended without a throttle. That is known one period later still: an
	 * episode is sent when it ends, at its period's refill. Keep the run
	 * open while an episode is pending. An episode held over refills by a
	 * deficit is sent only at its end, periods later. Closing the run
	 * before it arrives would split one long run into several.
	 */
	if (t->run && t->period_ns && !pending && place(now_ns, t->period_ns, t->end_ns).period > t->last + 2)
		run_over(t);
}

void period_track_end(struct period_track *t)
{
	run_over(t);
}

int demand_push(struct demand_series *d, uint64_t used_ns, uint64_t waited_ns)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 256;
		uint32_t *u = realloc(d->used_us, cap * sizeof(*u));
		if (!u)
			return -ENOMEM;
		d->used_us = u;
		uint32_t *w = realloc(d->waited_us, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		d->waited_us = w;
		d->cap = cap;
	}
	/* 32 bits of microseconds hold 71 minutes: far above the longest period (1 s) times the CPUs. */
	d->used_us[d->n] = used_ns / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(used_ns / 1000);
	d->waited_us[d->n] = waited_ns / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(waited_ns / 1000);
	d->n++;
	return 0;
}

void demand_free(struct demand_series *d)
{
	free(d->used_us);
	free(d->waited_us);
	memset(d, 0, sizeof(*d));
}

uint64_t demand_quantile_us(const struct demand_series *d, unsigned pct)
{
	size_t np = demand_periods(d), k = d->step_ns ? d->period_ns / d->step_ns : 1;
	uint64_t *v, q;

	if (!np || !(v = calloc(np, sizeof(*v))))
		return 0;
	for (size_t i = 0; i < np * k; i++)
		v[i / k] += demand_us(d, i);
	qsort(v, np, sizeof(*v), u64_cmp);
	q = u64_rank(v, np, pct);
	free(v);
	return q;
}

void demand_stats_of(uint64_t *v, size_t n, struct demand_stats *out)
{
	uint64_t sum = 0;

	out->periods = n;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	qsort(v, n, sizeof(*v), u64_cmp);
	out->mean_us = sum / n;
	out->p50_us = u64_rank(v, n, 50);
	out->p90_us = u64_rank(v, n, 90);
	out->p99_us = u64_rank(v, n, 99);
	out->max_us = u64_rank(v, n, 100);
}
