// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Throttling period by period (periods.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least pct % of them at or below it. */
static uint64_t rank(const uint64_t *v, size_t n, unsigned pct)
{
	size_t r = (n * pct + 99) / 100;

	return v[r ? r - 1 : 0];
}

int periods_of(const struct cgs_episode *e, size_t n, const struct period_input *in, struct period_stats *out)
{
	struct hit *h;
	uint64_t *first;
	size_t nh = 0, np = 0;

	memset(out, 0, sizeof(*out));
	if (!in->period_ns || !in->quota_ns || !in->end_ns)
		return 0;
	out->known = true;
	for (size_t i = 0; i < n; i++)
		nh += e[i].cgid == in->id;
	if (!nh)
		return 0;
	if (!(h = malloc(nh * sizeof(*h))) || !(first = malloc(nh * sizeof(*first)))) {
		free(h);
		return -ENOMEM;
	}
	nh = 0;
	for (size_t i = 0; i < n; i++) {
		if (e[i].cgid != in->id)
			continue;
		/* The period its start falls in: [end - P, end) is period 0, earlier ones negative. */
		int64_t rel = (int64_t)(e[i].start_ns - in->end_ns) + (int64_t)in->period_ns;
		int64_t p = rel >= 0 ? rel / (int64_t)in->period_ns : -((-rel + (int64_t)in->period_ns - 1) / (int64_t)in->period_ns);
		h[nh++] = (struct hit){ .period = p, .offset = (uint64_t)(rel - p * (int64_t)in->period_ns) };
	}
	qsort(h, nh, sizeof(*h), cmp_hit);
	uint64_t run = 0;
	for (size_t i = 0; i < nh; i++) {
		if (i && h[i].period == h[i - 1].period)
			continue; /* another CPU's episode of a period counted: its earliest came first */
		run = i && h[i].period == h[i - 1].period + 1 ? run + 1 : 1;
		if (run > out->longest_run)
			out->longest_run = run;
		first[np++] = h[i].offset;
	}
	out->throttled = np;
	qsort(first, np, sizeof(*first), cmp_u64);
	out->ran_out_p50_ns = rank(first, np, 50);
	out->ran_out_p99_ns = rank(first, np, 99);
	/* Under half its quota on average, and throttled all the same: bursts outran it. */
	if (in->window_ns && (double)in->use_ns / in->window_ns < 0.5 * in->quota_ns / in->period_ns)
		out->underused = np;
	free(h);
	free(first);
	return 0;
}
