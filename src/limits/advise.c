// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched advise's arithmetic (advise.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits/advise.h"

size_t advise_replay(const uint64_t *d, size_t n, uint64_t quota_us, uint64_t burst_us)
{
	uint64_t left = quota_us, deferred = 0; /* runtime at the period's start; work carried in */
	size_t throttled = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t need = d[i] + deferred;
		if (need > left) {
			throttled++;
			deferred = need - left;
			left = 0;
		} else {
			deferred = 0;
			left -= need;
		}
		/* The refill: a quota more, what was left kept up to the burst. */
		left = (left < burst_us ? left : burst_us) + quota_us;
	}
	return throttled;
}

/* The smallest multiple of step in [lo, hi] for which ok(v) holds (ok monotone), or hi. */
static uint64_t least(uint64_t lo, uint64_t hi, uint64_t step, bool (*ok)(void *, uint64_t), void *ctx)
{
	lo = (lo + step - 1) / step;
	hi = (hi + step - 1) / step;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ok(ctx, mid * step))
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi * step;
}

struct want {
	const uint64_t *const *d;
	size_t nph, n, allowed;
	uint64_t quota;   /* for the burst's search */
};

/* The most periods any offset's replay throttles. */
static size_t replay_all(const struct want *w, uint64_t q, uint64_t b)
{
	size_t most = 0;

	for (size_t p = 0; p < w->nph; p++) {
		size_t t = advise_replay(w->d[p], w->n, q, b);
		if (t > most)
			most = t;
	}
	return most;
}

static bool quota_ok(void *ctx, uint64_t q)
{
	const struct want *w = ctx;

	return replay_all(w, q, 0) <= w->allowed;
}

static bool burst_ok(void *ctx, uint64_t b)
{
	const struct want *w = ctx;

	return replay_all(w, w->quota, b) <= w->allowed;
}

int advise(const uint64_t *const *d, size_t nph, size_t n, uint64_t period_us, double target, uint64_t step_us,
	   bool burst, unsigned ncpus, uint64_t headroom_us, struct advice *out)
{
	uint64_t sum = 0, max = 0;

	memset(out, 0, sizeof(*out));
	if (!n || !nph || !period_us || !step_us)
		return -EINVAL;
	for (size_t p = 0; p < nph; p++)
		for (size_t i = 0; i < n; i++) {
			if (!p)
				sum += d[0][i];
			if (d[p][i] > max)
				max = d[p][i];
		}
	struct want w = { .d = d, .nph = nph, .n = n, .allowed = (size_t)floor(target * n) };
	out->n = n;
	out->period_us = period_us;
	out->target = target;
	out->mean_us = sum / n;
	out->mean_throttled = replay_all(&w, out->mean_us ? out->mean_us : 1, 0);
	/* No quota above what every CPU can run, and none under the kernel's least (1 ms). */
	uint64_t cap = (uint64_t)(ncpus ? ncpus : 1) * period_us;
	uint64_t hi = max > step_us ? max : step_us;
	if (hi > cap)
		hi = cap;
	out->headroom_us = headroom_us;
	out->quota_us = least(step_us, hi, step_us, quota_ok, &w);
	out->quota_us = out->quota_us + headroom_us < cap ? out->quota_us + headroom_us : cap;
	out->throttled = replay_all(&w, out->quota_us, 0);
	if (!burst)
		return 0;
	/*
	 * With a burst: the least quota from the mean up for which a burst of
	 * at most that quota (the kernel's rule) meets the target; the least
	 * such burst for it. Where none does below the quota without one,
	 * that quota and no burst.
	 */
	out->burst_ok = true;
	out->bq_quota_us = out->quota_us;
	out->bq_burst_us = 0;
	out->bq_throttled = out->throttled;
	for (uint64_t q = (out->mean_us / step_us) * step_us; q + headroom_us < out->quota_us; q += step_us) {
		if (q < step_us)
			continue;
		w.quota = q;
		if (replay_all(&w, q, q) > w.allowed)
			continue; /* not even with the largest burst the kernel takes */
		out->bq_burst_us = least(0, q, step_us, burst_ok, &w);
		out->bq_quota_us = q + headroom_us;
		out->bq_throttled = replay_all(&w, out->bq_quota_us, out->bq_burst_us);
		break;
	}
	return 0;
}

bool advise_missed(size_t k, size_t n, double p, double alpha, double *chance)
{
	/* P(X >= k) for X ~ Binomial(n, p), summed in logs (n up to millions of periods). */
	double tail = 0;

	if (k == 0 || p >= 1) {
		*chance = 1;
		return false;
	}
	if (p <= 0) {
		*chance = 0;
		return true;
	}
	for (size_t i = k; i <= n; i++) {
		double l = lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) + i * log(p) + (n - i) * log1p(-p);
		double t = exp(l);
		tail += t;
		if (t < tail * 1e-12 && i > n * p)
			break; /* the rest adds nothing */
	}
	*chance = tail > 1 ? 1 : tail;
	return *chance < alpha;
}

/* Counts from a report file, held to what a machine can have (no overflow below). */
static int64_t cpu_count(int64_t n)
{
	return n < 0 ? -1 : n > ADVISE_CPUS_MAX ? ADVISE_CPUS_MAX : n;
}

uint64_t advise_headroom_us(int64_t used, int64_t any, int64_t slice_us, int64_t ncpus)
{
	used = cpu_count(used);
	any = cpu_count(any);
	ncpus = cpu_count(ncpus);
	slice_us = slice_us > 1000000 ? 1000000 : slice_us; /* the sysctl's most: 1 s */
	int64_t main = used > 1 ? used : 1, others = any - main > 1 ? any - main : 1;
	uint64_t h = used > 1 && slice_us > 0 ? (uint64_t)(used - 1) * (uint64_t)slice_us : 0;

	if (ncpus > 0 && main + others > ncpus)
		others = ncpus > main ? ncpus - main : 0;
	return h + (uint64_t)others * ADVISE_CPU_KEEPS_US;
}

size_t advise_censored(const uint64_t *waited_us, size_t k, size_t m)
{
	size_t c = 0;

	for (size_t j = 0; j < m; j++)
		for (size_t s = 0; s < k; s++)
			if (waited_us[j * k + s]) {
				c++;
				break;
			}
	return c;
}

/* splitmix64: a fixed seed gives the same draws on every machine. */
static uint64_t draw(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int u64_asc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int advise_interval(const uint64_t *const *d, size_t nph, size_t n, uint64_t period_us, double target,
		    uint64_t step_us, unsigned ncpus, uint64_t headroom_us, struct advice_interval *out)
{
	struct advice a;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!n || !nph || !period_us || !step_us)
		return -EINVAL;
	/* A search halves [step, cap] until one step is left; a few replays more for the mean and the count. */
	uint64_t cap = (uint64_t)(ncpus ? ncpus : 1) * period_us, steps = cap / step_us + 1, per = 3;
	while (steps > 1) {
		steps = (steps + 1) / 2;
		per++;
	}
	per *= (uint64_t)nph * n;
	size_t r = ADVISE_BOOT_WORK / per;
	r = r < ADVISE_BOOT_MIN ? ADVISE_BOOT_MIN : r > ADVISE_BOOT_MAX ? ADVISE_BOOT_MAX : r;
	uint64_t **bs = calloc(nph, sizeof(*bs)), *q = calloc(r, sizeof(*q)), seed = ADVISE_BOOT_SEED;
	size_t *idx = calloc(n, sizeof(*idx));
	for (size_t p = 0; bs && p < nph; p++)
		if (!(bs[p] = malloc(n * sizeof(**bs))))
			goto out;
	if (!bs || !q || !idx)
		goto out;
	for (size_t i = 0; i < r; i++) {
		for (size_t j = 0; j < n; j++)
			idx[j] = draw(&seed) % n;
		for (size_t p = 0; p < nph; p++)
			for (size_t j = 0; j < n; j++)
				bs[p][j] = d[p][idx[j]];
		advise((const uint64_t *const *)bs, nph, n, period_us, target, step_us, false, ncpus, headroom_us, &a);
		q[i] = a.quota_us;
	}
	qsort(q, r, sizeof(*q), u64_asc);
	/* Nearest rank: the ceil(p x r)-th of r, from 1. */
	size_t lo = (size_t)ceil(0.025 * r), hi = (size_t)ceil(0.975 * r);
	out->low_us = q[lo ? lo - 1 : 0];
	out->high_us = q[hi ? hi - 1 : 0];
	out->resamples = r;
	err = 0;
out:
	for (size_t p = 0; bs && p < nph; p++)
		free(bs[p]);
	free(bs);
	free(q);
	free(idx);
	return err;
}

uint64_t advise_systemd_pct(uint64_t quota_us, uint64_t period_us)
{
	return period_us ? (quota_us * 100 + period_us - 1) / period_us : 0;
}

uint64_t advise_millicores(uint64_t quota_us, uint64_t period_us)
{
	return period_us ? (quota_us * 1000 + period_us - 1) / period_us : 0;
}

const char *advise_systemd_period(char *buf, size_t len, uint64_t period_us)
{
	if (period_us == ADVISE_SYSTEMD_PERIOD_US)
		return NULL;
	if (period_us % 1000)
		snprintf(buf, len, "%lluus", (unsigned long long)period_us);
	else
		snprintf(buf, len, "%llums", (unsigned long long)period_us / 1000);
	return buf;
}
