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

/* A period counts as censored once, whatever steps of it held throttled waits; steps after the m periods do not count. */
Test(advise, censored_periods_are_those_with_a_wait)
{
	uint64_t w[35] = { 0 };

	cr_assert_eq(advise_censored(w, 10, 3), 0);
	w[3] = 1;
	w[4] = 500;
	w[29] = 7;
	w[31] = 100;
	cr_assert_eq(advise_censored(w, 10, 3), 2);
	cr_assert_eq(advise_censored(w, 10, 2), 1);
	cr_assert_eq(advise_censored(w, 5, 7), 3);
}

/*
 * The interval from resamples of 30 periods of the pulse: a resample holds
 * no 60 ms period with chance 0.9^30 = 4.2 %, more than the 2.5 % the low
 * end leaves out, so the low end is the light periods' 20 ms. Nearly every
 * resample holds one, so the high end is the advice's 60 ms.
 */
Test(advise, the_interval_spans_what_resamples_advise)
{
	uint64_t d[30], e[30];
	struct advice a;
	struct advice_interval iv, again;

	pulses(d, 30);
	cr_assert_eq(advise(ONE(d), 1, 30, 100000, 0.01, 1000, false, 2, 0, &a), 0);
	cr_assert_eq(a.quota_us, 60000);
	cr_assert_eq(advise_interval(ONE(d), 1, 30, 100000, 0.01, 1000, 2, 0, &iv), 0);
	cr_assert_eq(iv.resamples, ADVISE_BOOT_MAX);
	cr_assert_eq(iv.low_us, 20000, "low %llu", (unsigned long long)iv.low_us);
	cr_assert_eq(iv.high_us, 60000, "high %llu", (unsigned long long)iv.high_us);
	/* The seed is fixed: the same report gives the same interval. */
	cr_assert_eq(advise_interval(ONE(d), 1, 30, 100000, 0.01, 1000, 2, 0, &again), 0);
	cr_assert(again.low_us == iv.low_us && again.high_us == iv.high_us);
	/* Headroom goes on each resample's quota, as on the advice's. */
	cr_assert_eq(advise_interval(ONE(d), 1, 30, 100000, 0.01, 1000, 2, 5000, &iv), 0);
	cr_assert(iv.low_us == 25000 && iv.high_us == 65000, "%llu-%llu", (unsigned long long)iv.low_us,
		  (unsigned long long)iv.high_us);
	/* A steady demand: every resample advises the same. */
	for (int i = 0; i < 30; i++)
		e[i] = 30000;
	cr_assert_eq(advise_interval(ONE(e), 1, 30, 100000, 0.01, 1000, 2, 0, &iv), 0);
	cr_assert(iv.low_us == 30000 && iv.high_us == 30000);
	cr_assert_eq(advise_interval(ONE(e), 1, 0, 100000, 0.01, 1000, 2, 0, &iv), -EINVAL);
}

/* The resamples are bounded by the periods they replay: a long record gets the fewest. */
Test(advise, the_interval_work_is_bounded)
{
	size_t n = 36000;
	uint64_t *d = malloc(n * sizeof(*d));
	struct advice_interval iv;

	cr_assert_not_null(d);
	pulses(d, n);
	cr_assert_eq(advise_interval(ONE(d), 1, n, 100000, 0.01, 1000, 2, 0, &iv), 0);
	/* 8 halvings of 201 steps and 3 replays more, each of 36000 periods: 40e6 / (11 x 36000) = 101. */
	cr_assert_eq(iv.resamples, 101, "%zu resamples", iv.resamples);
	cr_assert_eq(iv.high_us, 60000);
	/* At ten offsets, ten times the work a resample: the least. */
	const uint64_t *ten[10] = { d, d, d, d, d, d, d, d, d, d };
	cr_assert_eq(advise_interval(ten, 10, n, 100000, 0.01, 1000, 2, 0, &iv), 0);
	cr_assert_eq(iv.resamples, ADVISE_BOOT_MIN);
	free(d);
}

/*
 * The forms round up. systemd writes quota = CPUQuota's share of a second
 * x period / 1 s, rounded down; the kubelet millicores x period / 1000. Each
 * such quota is at least the advice, at every quota of a period.
 */
Test(advise, the_forms_round_up)
{
	char b[32];

	cr_assert_eq(advise_systemd_pct(62000, 100000), 62);
	cr_assert_eq(advise_systemd_pct(62001, 100000), 63);
	cr_assert_eq(advise_systemd_pct(85000, 200000), 43);
	cr_assert_eq(advise_systemd_pct(250000, 100000), 250);
	cr_assert_eq(advise_millicores(62000, 100000), 620);
	cr_assert_eq(advise_millicores(62001, 100000), 621);
	cr_assert_eq(advise_millicores(85000, 200000), 425);
	cr_assert_eq(advise_millicores(1000, 100000), 10);
	for (uint64_t q = 1000; q <= 200000; q += 7) {
		uint64_t pct = advise_systemd_pct(q, 100000), m = advise_millicores(q, 100000);
		cr_assert_geq(pct * 10000 * 100000 / 1000000, q, "CPUQuota=%llu%% for %llu", (unsigned long long)pct,
			      (unsigned long long)q);
		cr_assert_lt((pct - 1) * 1000, q, "CPUQuota=%llu%% is more than needed for %llu", (unsigned long long)pct,
			     (unsigned long long)q);
		cr_assert_geq(m * 100000 / 1000, q, "%llum for %llu", (unsigned long long)m, (unsigned long long)q);
		cr_assert_lt((m - 1) * 100, q, "%llum is more than needed for %llu", (unsigned long long)m,
			     (unsigned long long)q);
	}
	for (uint64_t q = 1000; q <= 400000; q += 13) {
		uint64_t pct = advise_systemd_pct(q, 200000);
		cr_assert_geq(pct * 10000 * 200000 / 1000000, q);
	}
	cr_assert_null(advise_systemd_period(b, sizeof(b), 100000));
	cr_assert_str_eq(advise_systemd_period(b, sizeof(b), 200000), "200ms");
	cr_assert_str_eq(advise_systemd_period(b, sizeof(b), 1500), "1500us");
	cr_assert_str_eq(advise_systemd_period(b, sizeof(b), 1000000), "1000ms");
}
