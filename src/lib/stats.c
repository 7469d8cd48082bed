// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Distribution-free statistics of repeated runs (stats.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

/* Up to this many runs in all the rank sum's distribution is counted: N x m x N^2 steps. */
#define EXACT_MAX 100

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (s) {
		memcpy(s, x, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_d);
	}
	return s;
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double stat_median(const double *x, size_t n)
{
	double *s = sorted_copy(x, n), m;

	if (!s) { /* out of memory: the middle of an unsorted copy is still a value of x */
		return x[n / 2];
	}
	m = median_sorted(s, n);
	free(s);
	return m;
}

/* P(Bin(n, 1/2) <= k), by logs: n is at most a few thousand. */
static double binom_half_cdf(size_t n, size_t k)
{
	double p = 0;

	for (size_t i = 0; i <= k && i <= n; i++)
		p += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
	return p > 1 ? 1 : p;
}

int stat_summarize(const double *x, size_t n, double conf, struct stat_summary *out)
{
	double *s = sorted_copy(x, n);

	if (!s)
		return -ENOMEM;
	*out = (struct stat_summary){ .n = n, .median = median_sorted(s, n), .min = s[0], .max = s[n - 1] };
	/* The widest j that still covers at least conf: [s(j), s(n+1-j)], 1-based. */
	size_t j = 1;
	while (j + 1 <= (n + 1) / 2 && 1 - 2 * binom_half_cdf(n, j) >= conf)
		j++;
	out->lo = s[j - 1];
	out->hi = s[n - j];
	out->coverage = 1 - 2 * binom_half_cdf(n, j - 1);
	if (out->coverage < 0)
		out->coverage = 0;
	free(s);
	return 0;
}

/*
 * The rank sum's distribution: of the doubled ranks r[0..N), the number of
 * ways to choose m whose sum is s, for every s (dist[0..*len)). Counts as
 * doubles: C(100, 50) ~ 1e29 is far within range, and only ratios are used.
 */
static double *rank_sum_dist(const unsigned *r, size_t N, size_t m, size_t *len)
{
	size_t top = 0;

	for (size_t i = 0; i < N; i++)
		top += r[i];
	size_t w = top + 1;
	double *c = calloc((m + 1) * w, sizeof(*c));
	if (!c)
		return NULL;
	c[0] = 1;
	for (size_t i = 0; i < N; i++)
		for (size_t k = (i + 1 < m ? i + 1 : m); k >= 1; k--)
			for (size_t s = top; s >= r[i]; s--) {
				c[k * w + s] += c[(k - 1) * w + s - r[i]];
				if (s == r[i])
					break;
			}
	double *d = malloc(w * sizeof(*d));
	if (d)
		memcpy(d, c + m * w, w * sizeof(*d));
	free(c);
	*len = w;
	return d;
}

/* The standard normal's upper tail. */
static double norm_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

/* z with norm_sf(z) = p, 0 < p < 1: bisection, plenty for a confidence level. */
static double norm_isf(double p)
{
	double lo = -40, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (norm_sf(mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

struct tagged {
	double v;
	int is_new;
};

static int cmp_t(const void *a, const void *b)
{
	return cmp_d(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

/* The exact one-sided p: the share of the rank sum's distribution at obs or above. */
static int exact_p(const unsigned *r, size_t N, size_t nn, size_t obs, double *p)
{
	size_t len;
	double *d = rank_sum_dist(r, N, nn, &len), all = 0, up = 0;

	if (!d)
		return -ENOMEM;
	for (size_t s = 0; s < len; s++) {
		all += d[s];
		if (s >= obs)
			up += d[s];
	}
	free(d);
	*p = up / all;
	return 0;
}

/*
 * The one-sided p of the rank-sum test: mid-ranks (doubled: integers), the
 * new sample's rank sum against its permutation distribution.
 */
static int rank_sum_p(const double *base, size_t nb, const double *new_, size_t nn, double *p, bool *exact)
{
	size_t N = nb + nn;
	struct tagged *t = malloc(N * sizeof(*t));
	unsigned *r = malloc(N * sizeof(*r));
	double ties = 0; /* sum of t^3 - t over the groups of ties */
	size_t obs = 0;  /* the new sample's doubled rank sum */
	int err = 0;

	if (!t || !r) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nb; i++)
		t[i] = (struct tagged){ base[i], 0 };
	for (size_t i = 0; i < nn; i++)
		t[nb + i] = (struct tagged){ new_[i], 1 };
	qsort(t, N, sizeof(*t), cmp_t);
	for (size_t i = 0, j; i < N; i = j) {
		for (j = i + 1; j < N && t[j].v == t[i].v; j++)
			;
		/* Ranks i+1..j share their mean, doubled: i+1+j. */
		for (size_t k = i; k < j; k++)
			r[k] = (unsigned)(i + 1 + j);
		double g = (double)(j - i);
		ties += g * g * g - g;
	}
	for (size_t i = 0; i < N; i++)
		if (t[i].is_new)
			obs += r[i];
	if (N <= EXACT_MAX) {
		if (!(err = exact_p(r, N, nn, obs, p)))
			*exact = true;
	} else {
		/* U of the new sample, its mean and variance with ties; a continuity correction of 1/2. */
		double u = obs / 2.0 - nn * (nn + 1) / 2.0, mean = nn * (double)nb / 2;
		double var = nn * (double)nb / 12 * ((N + 1) - ties / ((double)N * (N - 1)));
		*p = var > 0 ? norm_sf((u - mean - 0.5) / sqrt(var)) : (u > mean ? 0 : 1);
		*exact = false;
	}
out:
	free(t);
	free(r);
	return err;
}

/* shift_k by the exact distribution, a = (1 - conf) / 2. */
static int shift_k_exact(size_t nb, size_t nn, double a, size_t *k, double *cov)
{
	size_t N = nb + nn, M = nb * nn;
	unsigned *r = malloc(N * sizeof(*r));
	size_t len, base = nn * (nn + 1); /* the least doubled rank sum: U = 0 */
	double *d = NULL, all = 0, cum = 0, below;
	int err = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < N; i++)
		r[i] = (unsigned)(2 * (i + 1));
	if (!(d = rank_sum_dist(r, N, nn, &len))) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t s = 0; s < len; s++)
		all += d[s];
	/* Doubled sums step by 2: U = (s - base) / 2. k = 1 covers 1 - 2 P(U = 0) at least. */
	below = d[base] / all; /* P(U <= k-1) for the k chosen */
	*k = 1;
	for (size_t u = 0; base + 2 * u < len && u < M; u++) {
		cum += d[base + 2 * u] / all;
		if (cum > a)
			break;
		*k = u + 1;
		below = cum;
	}
	*cov = 1 - 2 * below;
	if (*cov < 0)
		*cov = 0;
out:
	free(r);
	free(d);
	return err;
}

/*
 * k for the shift's interval: the largest with P(U <= k-1) <= (1-conf)/2
 * under no difference and no ties (ranks 1..N); at least 1. *cov: what
 * [d(k), d(M+1-k)] then covers.
 */
static int shift_k(size_t nb, size_t nn, double conf, size_t *k, double *cov)
{
	size_t N = nb + nn, M = nb * nn;
	double a = (1 - conf) / 2;

	if (N <= EXACT_MAX)
		return shift_k_exact(nb, nn, a, k, cov);
	double z = norm_isf(a), sd = sqrt(nn * (double)nb * (N + 1) / 12);
	double kk = floor(M / 2.0 - z * sd);
	*k = kk < 1 ? 1 : (size_t)kk;
	*cov = conf;
	return 0;
}

int stat_compare(const double *base, size_t nb, const double *new_, size_t nn, double conf, struct stat_shift *out)
{
	size_t M = nb * nn, k;
	double *d;
	int err;

	if (nb + nn > 2000)
		return -E2BIG;
	memset(out, 0, sizeof(*out));
	if ((err = rank_sum_p(base, nb, new_, nn, &out->p_greater, &out->exact)))
		return err;
	if (!(d = malloc(M * sizeof(*d))))
		return -ENOMEM;
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < nn; j++)
			d[i * nn + j] = new_[j] - base[i];
	qsort(d, M, sizeof(*d), cmp_d);
	out->shift = median_sorted(d, M);
	if ((err = shift_k(nb, nn, conf, &k, &out->coverage)))
		goto out;
	if (k > (M + 1) / 2)
		k = (M + 1) / 2;
	out->lo = d[k - 1];
	out->hi = d[M - k];
out:
	free(d);
	return err;
}
