// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched advise's arithmetic (limits/advise.c): the replay, the least quota and burst, the verdict. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "limits/advise.h"

/* One offset's periods, as advise takes them. */
#define ONE(d) ((const uint64_t *const[]){ (d) })

/* 20 ms in nine periods of ten, 60 ms in the tenth, 100 periods. */
static void pulses(uint64_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = i % 10 == 9 ? 60000 : 20000;
}

Test(advise, replay_defers_what_a_period_cannot_run)
{
	uint64_t d[] = { 10000, 50000, 10000, 10000, 10000 };

	/* Quota 30 ms: the 50 ms period is throttled and defers 20 ms; the next needs 30: just fits. */
	cr_assert_eq(advise_replay(d, 5, 30000, 0), 1);
	/* Quota 25 ms: 50 defers 25, the next needs 35 (throttled, defers 10), then 20: fits. */
	cr_assert_eq(advise_replay(d, 5, 25000, 0), 2);
	/* A burst of 20 ms: the first period leaves 20 over, so the 50 fits in 30 + 20. */
	cr_assert_eq(advise_replay(d, 5, 30000, 20000), 0);
	/* What is left over is kept only up to the burst. */
	cr_assert_eq(advise_replay(d, 5, 30000, 10000), 1);
}

Test(advise, the_least_quota_and_the_least_burst)
{
	uint64_t d[100];
	struct advice a;

	pulses(d, 100);
	cr_assert_eq(advise(ONE(d), 1, 100, 100000, 0.01, 1000, true, 2, 0, &a), 0);
	/* 1 % of 100 periods: one may be throttled; ten pulses are: the quota must cover 60 ms. */
	cr_assert_eq(a.quota_us, 60000, "quota %llu", (unsigned long long)a.quota_us);
	cr_assert_eq(a.throttled, 0);
	cr_assert_eq(a.mean_us, 24000);
	/* The mean defers each pulse's 36 ms over the periods after (4 ms spare each): 9 throttled a pulse. */
	/* (9 a pulse: it and the 8 after it; the last pulse is the last period, 1.) */
	cr_assert_eq(a.mean_throttled, 9 * 9 + 1, "mean throttles %zu", a.mean_throttled);
	/* With a burst: quota q and burst b <= q with q + b >= 60 and the light periods refilling it. */
	cr_assert(a.burst_ok);
	cr_assert_eq(a.bq_quota_us, 30000, "burst's quota %llu", (unsigned long long)a.bq_quota_us);
	cr_assert_eq(a.bq_burst_us, 30000, "burst %llu", (unsigned long long)a.bq_burst_us);
	cr_assert_eq(a.bq_throttled, 0);
	/* A target of 10 %: ten throttled periods are allowed, so the quota need only cover 20 ms... */
	cr_assert_eq(advise(ONE(d), 1, 100, 100000, 0.10, 1000, false, 2, 0, &a), 0);
	cr_assert_leq(a.throttled, 10);
	cr_assert_lt(a.quota_us, 60000);
	/* ... and headroom goes on top of what the replay found. */
	cr_assert_eq(advise(ONE(d), 1, 100, 100000, 0.01, 1000, false, 2, 5000, &a), 0);
	cr_assert_eq(a.quota_us, 65000);
	cr_assert_eq(a.headroom_us, 5000);
	cr_assert_eq(advise(ONE(d), 1, 0, 100000, 0.01, 1000, false, 2, 0, &a), -EINVAL);
}

Test(advise, steady_demand_needs_no_burst)
{
	uint64_t d[50];
	struct advice a;

	for (int i = 0; i < 50; i++)
		d[i] = 30000 + (i % 3) * 100;
	cr_assert_eq(advise(ONE(d), 1, 50, 100000, 0.01, 1000, true, 1, 0, &a), 0);
	cr_assert_eq(a.quota_us, 31000);
	cr_assert_eq(a.bq_burst_us, 0, "a burst advised for a steady demand");
}

Test(advise, a_miss_is_beyond_chance)
{
	double c;

	/* 1 % of 40 periods: 0 or 1 or 2 throttled is within chance, 3 is not (P = 0.0075). */
	cr_assert(!advise_missed(0, 40, 0.01, 0.05, &c));
	cr_assert_float_eq(c, 1.0, 1e-9);
	cr_assert(!advise_missed(2, 40, 0.01, 0.05, &c));
	cr_assert_float_eq(c, 1 - pow(0.99, 40) - 40 * 0.01 * pow(0.99, 39), 1e-9);
	cr_assert(advise_missed(3, 40, 0.01, 0.05, &c));
	cr_assert_lt(c, 0.01);
	/* A target of 0: any throttled period is a miss. */
	cr_assert(advise_missed(1, 40, 0, 0.05, &c));
}

Test(advise, the_advice_holds_at_every_offset)
{
	/* Periods of 10 steps: 6 steps of 10 ms every 100 steps (steps 95-100, ...), 2 ms in every other step. */
	uint64_t steps[1000], *ph[10];
	size_t n = (1000 - 9) / 10;
	struct advice a;

	for (int i = 0; i < 1000; i++)
		steps[i] = i % 100 >= 95 || (i % 100 < 1 && i >= 100) ? 10000 : 2000;
	for (int p = 0; p < 10; p++) {
		ph[p] = calloc(n, sizeof(uint64_t));
		for (size_t j = 0; j < n * 10; j++)
			ph[p][j / 10] += steps[p + j];
	}
	/* At offset 0 the pulse is split, 50 ms + 5 x 2 in one period: 60; offset 5 holds it whole: 60 + 4 x 2. */
	cr_assert_eq(advise((const uint64_t *const *)ph, 1, n, 100000, 0.01, 1000, false, 2, 0, &a), 0);
	uint64_t at0 = a.quota_us;
	cr_assert_eq(advise((const uint64_t *const *)ph, 10, n, 100000, 0.01, 1000, false, 2, 0, &a), 0);
	cr_assert_gt(a.quota_us, at0, "every offset: %llu, offset 0 alone: %llu", (unsigned long long)a.quota_us,
		     (unsigned long long)at0);
	cr_assert_eq(at0, 60000, "offset 0: %llu", (unsigned long long)at0);
	cr_assert_eq(a.quota_us, 68000, "the whole pulse in one period: 68 ms");
	for (int p = 0; p < 10; p++)
		free(ph[p]);
}

/*
 * The headroom: a slice on each CPU with a share but one, and 1 ms on each
 * other CPU it touched, at least one (where a command starts before it
 * moves: the kernel left 1 ms of the quota there, test_advise_steady), up
 * to the CPUs there are.
 */
Test(advise, headroom_slices_and_what_a_cpu_keeps)
{
	cr_assert_eq(advise_headroom_us(1, 1, 5000, 2), 1000);
	cr_assert_eq(advise_headroom_us(1, 2, 5000, 2), 1000);
	cr_assert_eq(advise_headroom_us(1, 1, 5000, 1), 0);
	cr_assert_eq(advise_headroom_us(2, 2, 5000, 2), 5000);
	cr_assert_eq(advise_headroom_us(2, 2, 5000, 8), 6000);
	cr_assert_eq(advise_headroom_us(2, 5, 5000, 8), 8000);
	cr_assert_eq(advise_headroom_us(3, 3, 3000, 4), 7000);
	/* A report without the counts (older, or none ran): one CPU's 1 ms, if there is another. */
	cr_assert_eq(advise_headroom_us(-1, -1, 5000, 2), 1000);
	cr_assert_eq(advise_headroom_us(2, -1, 5000, -1), 6000);
	cr_assert_eq(advise_headroom_us(1, 2, -1, 4), 1000);
	/* A hand-made report's counts, held to a machine's: no overflow. */
	cr_assert_eq(advise_headroom_us(1, INT64_MIN, 5000, 2), 1000);
	cr_assert_eq(advise_headroom_us(1, INT64_MAX, 5000, -1), (uint64_t)(65536 - 1) * 1000);
}
