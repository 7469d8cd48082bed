// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The statistics of repeated runs (lib/stats.h) against known answers:
 * binomial coverages, rank-sum tails counted by hand, and, as a statistics
 * test, the false-alarm rate of the one-sided test at 95 % over many null
 * comparisons of skewed noise, with its bound stated.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "lib/stats.h"

Test(stats, median_and_its_interval_from_order_statistics)
{
	double x[10] = { 7, 1, 9, 3, 5, 2, 8, 4, 10, 6 };
	struct stat_summary s;

	cr_assert_float_eq(stat_median(x, 10), 5.5, 1e-12);
	cr_assert_float_eq(stat_median(x, 9), 5, 1e-12, "7 1 9 3 5 2 8 4 10: sorted 1 2 3 4 5 7 8 9 10, the 5th");
	cr_assert_eq(stat_summarize(x, 10, 0.95, &s), 0);
	/* n = 10: [x(2), x(9)] covers 1 - 2 * 11/1024 = 0.9785; [x(3), x(8)] only 0.8906. */
	cr_assert_float_eq(s.lo, 2, 1e-12);
	cr_assert_float_eq(s.hi, 9, 1e-12);
	cr_assert_float_eq(s.coverage, 1 - 2 * 11.0 / 1024, 1e-9);
	cr_assert_float_eq(s.min, 1, 1e-12);
	cr_assert_float_eq(s.max, 10, 1e-12);
	/* n = 5 cannot reach 95 %: min and max, and what they cover (1 - 2/32). */
	cr_assert_eq(stat_summarize(x, 5, 0.95, &s), 0);
	cr_assert_float_eq(s.lo, 1, 1e-12);
	cr_assert_float_eq(s.hi, 9, 1e-12);
	cr_assert_float_eq(s.coverage, 0.9375, 1e-9);
	cr_assert_eq(stat_summarize(x, 1, 0.95, &s), 0);
	cr_assert_float_eq(s.lo, 7, 1e-12);
	cr_assert_float_eq(s.hi, 7, 1e-12);
}

Test(stats, rank_sum_tails_counted)
{
	double a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 }, c[4] = { 1.5, 2.5, 6.5, 7.5 };
	struct stat_shift s;

	/* Every new one above every base one: 1 of C(8,4) = 70 splits. */
	cr_assert_eq(stat_compare(a, 4, b, 4, 0.95, &s), 0);
	cr_assert(s.exact);
	cr_assert_float_eq(s.p_greater, 1.0 / 70, 1e-12);
	cr_assert_float_eq(s.shift, 4, 1e-12, "every difference is 1..7, their median 4");
	/* The other way round: every split's sum is at least as large. */
	cr_assert_eq(stat_compare(b, 4, a, 4, 0.95, &s), 0);
	cr_assert_float_eq(s.p_greater, 1, 1e-12);
	/*
	 * Ranks of c among a and c: 1 2 3 4 5 6 7 8 for 1 1.5 2 2.5 3 4 6.5 7.5,
	 * c's 2 4 7 8 = 21; of the 70 ways to choose 4 of 1..8, 17 sum to 21
	 * or more (enumerated).
	 */
	cr_assert_eq(stat_compare(a, 4, c, 4, 0.95, &s), 0);
	cr_assert_float_eq(s.p_greater, 17.0 / 70, 1e-12);
	/* All tied: no evidence at all. */
	double t[6] = { 3, 3, 3, 3, 3, 3 };
	cr_assert_eq(stat_compare(t, 3, t + 3, 3, 0.95, &s), 0);
	cr_assert_float_eq(s.p_greater, 1, 1e-12);
	cr_assert_float_eq(s.shift, 0, 1e-12);
}

/* A reproducible stream: splitmix64, uniform in (0, 1). */
static uint64_t rng = 42;
static double uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((z >> 11) + 0.5) / 9007199254740992.0;
}

/* A run time: 1 s and skewed noise (exponential, mean 20 ms), as runs on a busy host. */
static double run_time(double scale)
{
	return scale * (1.0 + 0.02 * -log(uniform()));
}

Test(stats, shift_and_its_interval)
{
	double a[10], b[10];
	struct stat_shift s;

	for (int i = 0; i < 10; i++) {
		a[i] = 100 + i;
		b[i] = 130 + i;
	}
	cr_assert_eq(stat_compare(a, 10, b, 10, 0.95, &s), 0);
	cr_assert_float_eq(s.shift, 30, 1e-12);
	cr_assert(s.lo <= 30 && s.hi >= 30, "[%g, %g]", s.lo, s.hi);
	/* 10 and 10 at 95 %: k = 24 (P(U <= 23) = 0.0216, P(U <= 24) = 0.0262 > 0.025). */
	/* Differences 30+t, t = -9..9, 10-|t| of each: the 24th smallest is 27. */
	cr_assert_float_eq(s.lo, 27, 1e-12, "the 24th smallest difference of 10 x 10: %g", s.lo);
	cr_assert_float_eq(s.hi, 33, 1e-12);
	cr_assert_gt(s.coverage, 0.95);
	cr_assert_lt(s.coverage, 0.96);
	cr_assert_lt(s.p_greater, 1e-5);
}

/*
 * The statistics test. 2,000 comparisons of 10 runs against 10 of the same
 * distribution: the one-sided test at 95 % may alarm in at most 5 % of
 * them (the exact test's discreteness makes it 4.6 % here at most: the
 * largest tail at or under 0.05 of the rank sum of 10 and 10). The count is
 * binomial, mean <= 100, sd <= 9.8: the bound 100 + 4 sd = 139 fails a
 * correct test with probability under 4e-5 (and the stream is fixed: the
 * count is the same every run). And 10 against 10 runs 10 % slower: caught
 * every time with this noise (2 % mean).
 */
Test(stats, null_comparisons_alarm_at_most_as_often_as_the_level_says)
{
	double a[10], b[10];
	int alarms = 0, caught = 0;
	struct stat_shift s;

	for (int c = 0; c < 2000; c++) {
		for (int i = 0; i < 10; i++) {
			a[i] = run_time(1);
			b[i] = run_time(1);
		}
		cr_assert_eq(stat_compare(a, 10, b, 10, 0.95, &s), 0);
		alarms += s.p_greater < 0.05;
	}
	cr_log_info("null: %d alarms in 2000 at 95 %%", alarms);
	cr_assert_leq(alarms, 139, "%d false alarms in 2000, expected at most 100 (bound 139)", alarms);
	cr_assert_gt(alarms, 40, "%d alarms: the test would not be at its level (expected ~89)", alarms);
	for (int c = 0; c < 200; c++) {
		for (int i = 0; i < 10; i++) {
			a[i] = run_time(1);
			b[i] = run_time(1.1);
		}
		cr_assert_eq(stat_compare(a, 10, b, 10, 0.95, &s), 0);
		caught += s.p_greater < 0.05 && s.lo > 0;
	}
	cr_assert_eq(caught, 200);
}

/* Beyond 100 runs: the normal approximation, as the exact count would say at 100. */
Test(stats, large_samples_by_the_normal_approximation)
{
	static double a[150], b[150];
	struct stat_shift s;

	for (int i = 0; i < 150; i++) {
		a[i] = i;
		b[i] = i + 0.5;
	}
	cr_assert_eq(stat_compare(a, 150, b, 150, 0.95, &s), 0);
	cr_assert(!s.exact);
	cr_assert_gt(s.p_greater, 0.4, "a shift of half a step in 150: %g", s.p_greater);
	cr_assert_eq(stat_compare(a, 50, b, 50, 0.95, &s), 0);
	cr_assert(s.exact);
	double p_exact = s.p_greater;
	cr_assert_eq(stat_compare(a, 51, b, 51, 0.95, &s), 0);
	cr_assert(!s.exact);
	cr_assert_float_eq(s.p_greater, p_exact, 0.03, "normal %g, exact at 50: %g", s.p_greater, p_exact);
}
