/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Distribution-free statistics of repeated runs (record --repeat, check
 * --baseline). Run times and latencies are skewed and bounded below, so
 * nothing here assumes a normal distribution.
 *
 * - The median's confidence interval comes from order statistics.
 *   [x(j), x(n+1-j)] covers the median with probability
 *   1 - 2 P(Bin(n, 1/2) < j).
 * - Two samples are compared by the one-sided Wilcoxon-Mann-Whitney
 *   rank-sum test: is the new one stochastically larger? Ties get
 *   mid-ranks. Up to 100 runs in all, the p-value comes from the exact
 *   permutation distribution of the rank sum for those ranks, counted,
 *   not simulated. Beyond, it uses the normal approximation with the tie
 *   correction.
 * - The change is the Hodges-Lehmann estimate: the median of every
 *   new - base difference. Its interval runs from the k-th smallest to the
 *   k-th largest of those differences, with k from the rank sum's
 *   distribution without ties.
 */
#ifndef CGS_STATS_H
#define CGS_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stat_summary {
	size_t n;
	double median, min, max;
	double lo, hi;       /* the median's interval */
	double coverage;     /* what it achieves: at least the asked, or all n can give (n < 6 at 95 %) */
};

struct stat_shift {
	double shift;        /* Hodges-Lehmann: new - base */
	double lo, hi;       /* its interval */
	double coverage;     /* achieved */
	double p_greater;    /* one-sided: P(a rank sum at least this large | no difference) */
	bool exact;          /* p counted exactly (else: normal approximation) */
};

/* The median of x[0..n) (n >= 1); x is not changed. */
double stat_median(const double *x, size_t n);
/* n >= 1 values at confidence conf (0.5 to 0.9999). 0 or -ENOMEM. */
int stat_summarize(const double *x, size_t n, double conf, struct stat_summary *s);
/* base[0..nb), new[0..nn), each at least 1; conf as above. 0, -ENOMEM or -E2BIG (over 2,000 in all). */
int stat_compare(const double *base, size_t nb, const double *new_, size_t nn, double conf, struct stat_shift *out);

#endif
