// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Throttling period by period (report/periods.c): periods, runs, where the quota ran out, bursts. */
#include <criterion/criterion.h>

#include "report/periods.h"

#define MS 1000000ULL
/* A grid of 100 ms periods, one ending at 10 s. */
#define END (10000 * MS)
#define P (100 * MS)

static struct cgs_episode ep(uint64_t cgid, uint64_t start, uint32_t cpu)
{
	return (struct cgs_episode){ .cgid = cgid, .start_ns = start, .end_ns = start + 5 * MS, .cpu = cpu };
}

Test(periods, every_period_throttled_at_its_quota)
{
	/* A burner under 20 ms a period, throttled 20-23 ms into each of 30 periods in a row. */
	struct cgs_episode e[30];
	struct period_input in = { .id = 7, .period_ns = P, .quota_ns = 20 * MS, .end_ns = END,
				   .use_ns = 600 * MS, .window_ns = 3000 * MS };
	struct period_stats s;

	for (int i = 0; i < 30; i++)
		e[i] = ep(7, END + i * P + (20 + i % 4) * MS, 1);
	cr_assert_eq(periods_of(e, 30, &in, &s), 0);
	cr_assert(s.known);
	cr_assert_eq(s.throttled, 30);
	cr_assert_eq(s.longest_run, 30);
	cr_assert_eq(s.ran_out_p50_ns, 21 * MS, "p50 %llu", (unsigned long long)s.ran_out_p50_ns);
	cr_assert_eq(s.ran_out_p99_ns, 23 * MS, "p99 %llu", (unsigned long long)s.ran_out_p99_ns);
	cr_assert_eq(s.underused, 0, "it used its whole quota: no burst symptom");
}

Test(periods, a_period_counts_once_and_runs_break_at_gaps)
{
	/* Periods -3, -2 (two CPUs), 0, 1, 2, 5; other cgroups' episodes in between; out of order. */
	struct cgs_episode e[] = {
		ep(7, END + 1 * P + 40 * MS, 0), ep(7, END - 3 * P + 10 * MS, 0), ep(9, END + 3 * P, 0),
		ep(7, END - 2 * P + 30 * MS, 1), ep(7, END - 2 * P + 25 * MS, 0), ep(7, END + 0 * P + 1 * MS, 1),
		ep(7, END + 2 * P + 99 * MS, 1), ep(7, END + 5 * P, 0), ep(8, END, 0),
	};
	struct period_input in = { .id = 7, .period_ns = P, .quota_ns = 50 * MS, .end_ns = END,
				   .use_ns = 100 * MS, .window_ns = 1000 * MS };
	struct period_stats s;

	cr_assert_eq(periods_of(e, sizeof(e) / sizeof(*e), &in, &s), 0);
	cr_assert_eq(s.throttled, 6);
	cr_assert_eq(s.longest_run, 3); /* 0, 1, 2 */
	/* First offsets: 10, 25 (not 30), 1, 40, 99, 0 ms: median (nearest rank, 3rd of 6) 10 ms. */
	cr_assert_eq(s.ran_out_p50_ns, 10 * MS);
	cr_assert_eq(s.ran_out_p99_ns, 99 * MS);
	/* 10 % of a CPU on average against a quota of 50 %: under half, so every throttled period is a burst's. */
	cr_assert_eq(s.underused, 6);
}

Test(periods, an_episode_held_over_refills_counts_each_period_it_spans)
{
	/*
	 * As cpu.stat counts them (6.1 guest: a 116 ms episode, two periods
	 * there): 14 ms before the end of period 0 to a late refill 3 ms into
	 * period 2 spans the ends of 0 and 1; one ended inside its period by
	 * runtime handed back (period 4) counts there; one ending at its own
	 * period's refill (5) counts once, in it.
	 */
	struct cgs_episode e[] = {
		{ .cgid = 7, .start_ns = END - 14 * MS, .end_ns = END + P + 3 * MS, .cpu = 1 },
		{ .cgid = 7, .start_ns = END + 3 * P + 50 * MS, .end_ns = END + 3 * P + 52 * MS, .cpu = 1 },
		{ .cgid = 7, .start_ns = END + 4 * P + 60 * MS, .end_ns = END + 5 * P, .cpu = 0 },
	};
	struct period_input in = { .id = 7, .period_ns = P, .quota_ns = 40 * MS, .end_ns = END,
				   .use_ns = 100 * MS, .window_ns = 1000 * MS };
	struct period_stats s;

	cr_assert_eq(periods_of(e, 3, &in, &s), 0);
	cr_assert_eq(s.throttled, 4, "periods 0, 1, 4, 5: %llu", (unsigned long long)s.throttled);
	cr_assert_eq(s.longest_run, 2);
	/* Offsets 86 (period 0), 0 (period 1, throttled from its start), 50, 60 ms. */
	cr_assert_eq(s.ran_out_p50_ns, 50 * MS);
	cr_assert_eq(s.ran_out_p99_ns, 86 * MS);

	struct period_track t = {};
	period_track_grid(&t, P, END);
	cr_assert_eq(period_track_add(&t, e, 3), 0);
	cr_assert_eq(t.throttled, 4);
	cr_assert_eq(t.ran_out[0], 1, "period 1 ran out at its start: the le 5 ms bucket");
	cr_assert_eq(t.nruns, 1, "the run of 0-1 over");
	cr_assert_eq(t.run, 2, "4-5 open");
}

Test(periods, unknown_without_a_grid_or_quota)
{
	struct cgs_episode e[] = { ep(7, END, 0) };
	struct period_input in = { .id = 7, .period_ns = P, .quota_ns = 20 * MS, .end_ns = 0 };
	struct period_stats s;

	cr_assert_eq(periods_of(e, 1, &in, &s), 0);
	cr_assert(!s.known);
	in.end_ns = END;
	in.quota_ns = 0;
	cr_assert_eq(periods_of(e, 1, &in, &s), 0);
	cr_assert(!s.known);
}

Test(periods, a_throttle_without_time_counts_its_periods)
{
	/* No task held (CGS_EP_NO_TIME): the kernel counted no time, but its refills counted periods 2-3. */
	struct cgs_episode e = { .cgid = 7, .start_ns = END + P + 90 * MS, .end_ns = END + 3 * P + 1 * MS,
				 .flags = CGS_EP_NO_TIME };
	struct period_input in = { .id = 7, .period_ns = P, .quota_ns = 20 * MS, .end_ns = END };
	struct period_stats s;

	cr_assert(!episode_timed(&e));
	cr_assert_eq(periods_of(&e, 1, &in, &s), 0);
	cr_assert_eq(s.throttled, 2);
}

Test(periods, no_episodes_no_throttled_periods)
{
	struct period_input in = { .id = 7, .period_ns = P, .quota_ns = 20 * MS, .end_ns = END,
				   .use_ns = 1, .window_ns = 1000 * MS };
	struct period_stats s;

	cr_assert_eq(periods_of(NULL, 0, &in, &s), 0);
	cr_assert(s.known);
	cr_assert_eq(s.throttled + s.longest_run + s.underused + s.ran_out_p50_ns, 0);
}

Test(period_track, batches_on_one_grid_count_each_period_once)
{
	struct period_track t = {};
	struct cgs_episode a[10], b[10];

	/* Periods 0-9, then 10-19 with the grid read again (a later expiry on the same grid). */
	for (int i = 0; i < 10; i++) {
		a[i] = ep(7, END + i * P + 20 * MS, i % 2);
		b[i] = ep(7, END + (10 + i) * P + 30 * MS, 0);
	}
	period_track_grid(&t, P, END);
	cr_assert_eq(period_track_add(&t, a, 10), 0);
	period_track_grid(&t, P, END + 7 * P);
	cr_assert_eq(period_track_add(&t, b, 10), 0);
	/* Late: another CPU's episode of period 3. */
	cr_assert_eq(period_track_add(&t, &(struct cgs_episode){ .cgid = 7, .start_ns = END + 3 * P + 1 * MS }, 1), 0);
	cr_assert_eq(t.throttled, 20);
	cr_assert_eq(t.run, 20);
	cr_assert_eq(t.nruns, 0);
	/* 20 ms: le 0.02 (bucket 2); 30 ms: le 0.05 (bucket 3). */
	cr_assert_eq(t.ran_out[2], 10);
	cr_assert_eq(t.ran_out[3], 10);
	cr_assert_eq(t.ran_out_sum_ns, 500 * MS);
	/* Inside period 21 the run may go on (period 20 has just ended): still open; in 22 it is over. */
	period_track_close(&t, END + 21 * P + 50 * MS, false);
	cr_assert_eq(t.run, 20);
	period_track_close(&t, END + 22 * P + 1, false);
	cr_assert_eq(t.run, 0);
	cr_assert_eq(t.nruns, 1);
	cr_assert_eq(t.runs_sum, 20);
	cr_assert_eq(t.runs[5], 1, "a run of 20: the le=\"20\" bucket");
}

Test(period_track, a_run_stays_open_while_an_episode_is_still_to_come)
{
	struct period_track t = {};
	/* Periods 0-1, then one episode held over the refills of periods 2-4, sent at its end in 5. */
	struct cgs_episode a[] = { ep(7, END + 20 * MS, 0), ep(7, END + P + 20 * MS, 0) };
	struct cgs_episode held = { .cgid = 7, .start_ns = END + 2 * P + 20 * MS, .end_ns = END + 5 * P + 3 * MS };

	period_track_grid(&t, P, END);
	cr_assert_eq(period_track_add(&t, a, 2), 0);
	/* Reads in periods 3 and 4: the held episode is still open (pending), the run with it. */
	period_track_close(&t, END + 3 * P + 50 * MS, true);
	period_track_close(&t, END + 4 * P + 50 * MS, true);
	cr_assert_eq(t.run, 2);
	cr_assert_eq(t.nruns, 0);
	cr_assert_eq(period_track_add(&t, &held, 1), 0);
	cr_assert_eq(t.throttled, 5, "periods 0-1, and 2-4 whose ends it spans");
	cr_assert_eq(t.run, 5, "one run");
	cr_assert_eq(t.nruns, 0);
	/* Closed as it would have been without pending, it is two runs: the defect this guards. */
	struct period_track u = {};
	period_track_grid(&u, P, END);
	cr_assert_eq(period_track_add(&u, a, 2), 0);
	period_track_close(&u, END + 4 * P + 50 * MS, false);
	cr_assert_eq(period_track_add(&u, &held, 1), 0);
	cr_assert_eq(u.nruns, 1);
	cr_assert_eq(u.run, 3);
	/* Nothing to come, a period after the one after its last: over. */
	period_track_close(&t, END + 7 * P + 1, false);
	cr_assert_eq(t.nruns, 1);
	cr_assert_eq(t.runs_sum, 5);
}

Test(period_track, counting_from_a_moment_takes_the_periods_ending_after_it)
{
	/* Counting from 50 ms into period 2: an episode of periods 1-3 counts in 2-3, as cpu.stat's growth does. */
	struct period_track t = { .from_ns = END + P + 50 * MS };
	struct cgs_episode held = { .cgid = 7, .start_ns = END + 20 * MS, .end_ns = END + 3 * P + 2 * MS };
	struct cgs_episode before = ep(7, END - P + 20 * MS, 0); /* period 0, over before then */

	period_track_grid(&t, P, END);
	cr_assert_eq(period_track_add(&t, &before, 1), 0);
	cr_assert_eq(t.throttled, 0);
	cr_assert_eq(period_track_add(&t, &held, 1), 0);
	cr_assert_eq(t.throttled, 2);
	cr_assert_eq(t.ran_out[0], 2, "each from its start");
}

Test(period_track, a_gap_ends_a_run_and_a_new_grid_starts_afresh)
{
	struct period_track t = {};
	struct cgs_episode e[] = { ep(7, END + 1 * P, 0), ep(7, END + 2 * P, 0), ep(7, END + 4 * P, 0) };

	period_track_grid(&t, P, END);
	cr_assert_eq(period_track_add(&t, e, 3), 0);
	cr_assert_eq(t.throttled, 3);
	cr_assert_eq(t.nruns, 1); /* 1-2 over when 4 came */
	cr_assert_eq(t.runs[1], 1, "a run of 2");
	cr_assert_eq(t.run, 1);
	/* The period length changed: the open run ends, numbering starts again. */
	period_track_grid(&t, 2 * P, END + 50 * MS);
	cr_assert_eq(t.nruns, 2);
	cr_assert_eq(t.run, 0);
	cr_assert_eq(period_track_add(&t, &(struct cgs_episode){ .cgid = 7, .start_ns = END + 3 * P }, 1), 0);
	cr_assert_eq(t.throttled, 4, "period 4 of the old grid is a new period on the new one");
	/* No grid yet: nothing counted. */
	struct period_track u = {};
	cr_assert_eq(period_track_add(&u, e, 3), 0);
	cr_assert_eq(u.throttled, 0);
}

Test(demand, quantiles_of_use_plus_waits)
{
	struct demand_series d = { .period_ns = P, .step_ns = P };

	/* Steps of a whole period: 90 periods of 20 ms, 9 of 60 ms of which 40 waited, one of 100 ms. */
	for (int i = 0; i < 90; i++)
		cr_assert_eq(demand_push(&d, 20 * MS, 0), 0);
	for (int i = 0; i < 9; i++)
		cr_assert_eq(demand_push(&d, 20 * MS, 40 * MS), 0);
	cr_assert_eq(demand_push(&d, 100 * MS, 0), 0);
	cr_assert_eq(d.n, 100);
	cr_assert_eq(demand_us(&d, 95), 60000);
	cr_assert_eq(demand_quantile_us(&d, 50), 20000);
	cr_assert_eq(demand_quantile_us(&d, 90), 20000);
	cr_assert_eq(demand_quantile_us(&d, 91), 60000);
	cr_assert_eq(demand_quantile_us(&d, 99), 60000);
	cr_assert_eq(demand_quantile_us(&d, 100), 100000);
	demand_free(&d);
	cr_assert_eq(demand_quantile_us(&d, 50), 0, "none: 0");
}

Test(demand, steps_sum_into_periods)
{
	struct demand_series d = { .period_ns = P, .step_ns = P / DEMAND_STEPS };

	/* 25 steps: two whole periods (the last 5 steps are no period), 1 ms a step, 9 more in step 13. */
	for (int i = 0; i < 25; i++)
		cr_assert_eq(demand_push(&d, (i == 13 ? 10 : 1) * MS, 0), 0);
	cr_assert_eq(demand_periods(&d), 2);
	cr_assert_eq(demand_quantile_us(&d, 50), 10000);
	cr_assert_eq(demand_quantile_us(&d, 100), 19000);
	demand_free(&d);
}

/* What the timeline draws (period_sink): each period and each run, with their edges on the grid. */
struct sunk {
	uint64_t start[8], end[8], ran_out[8], run[8];
	int n;
	uint64_t rstart[4], rend[4], rlen[4];
	int nr;
};

static void sink_period(void *ctx, uint64_t start, uint64_t end, uint64_t ran_out, uint64_t run)
{
	struct sunk *k = ctx;

	k->start[k->n] = start, k->end[k->n] = end, k->ran_out[k->n] = ran_out, k->run[k->n] = run;
	k->n++;
}

static void sink_run(void *ctx, uint64_t start, uint64_t end, uint64_t len)
{
	struct sunk *k = ctx;

	k->rstart[k->nr] = start, k->rend[k->nr] = end, k->rlen[k->nr] = len;
	k->nr++;
}

Test(period_track, a_sink_sees_each_period_and_run_with_its_edges)
{
	struct sunk k = {};
	struct period_sink sink = { sink_period, sink_run, &k };
	struct period_track t = { .sink = &sink };
	/* Periods 1 and 2 (two CPUs in 2), then 4; period 0 is [END - P, END), 1 [END, END + P). */
	struct cgs_episode e[] = { ep(7, END + 1 * P + 25 * MS, 1), ep(7, END + 20 * MS, 0),
				   ep(7, END + 1 * P + 5 * MS, 0), ep(7, END + 3 * P + 5 * MS, 0) };

	period_track_grid(&t, P, END);
	cr_assert_eq(period_track_add(&t, e, 4), 0);
	cr_assert_eq(k.n, 3);
	cr_assert_eq(k.start[0], END);
	cr_assert_eq(k.end[0], END + P);
	cr_assert_eq(k.ran_out[0], 20 * MS);
	cr_assert_eq(k.ran_out[1], 5 * MS, "period 2 at its earliest episode, of either CPU");
	cr_assert_eq(k.run[1], 2);
	cr_assert_eq(k.start[2], END + 3 * P);
	cr_assert_eq(k.run[2], 1);
	/* The run of periods 1-2 (END .. END + 2P) ended when period 4 came. */
	cr_assert_eq(k.nr, 1);
	cr_assert_eq(k.rstart[0], END);
	cr_assert_eq(k.rend[0], END + 2 * P);
	cr_assert_eq(k.rlen[0], 2);
	/* The window's end: the open run of one is said. */
	period_track_end(&t);
	cr_assert_eq(k.nr, 2);
	cr_assert_eq(k.rstart[1], END + 3 * P);
	cr_assert_eq(k.rlen[1], 1);
	period_track_end(&t);
	cr_assert_eq(k.nr, 2, "said once");
}

Test(demand, stats_of_whole_periods)
{
	uint64_t v[] = { 60000, 20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000 };
	struct demand_stats s = {};

	demand_stats_of(v, 10, &s);
	cr_assert_eq(s.periods, 10);
	cr_assert_eq(s.mean_us, 24000);
	cr_assert_eq(s.p50_us, 20000);
	cr_assert_eq(s.p90_us, 20000, "nearest rank: the 9th of 10");
	cr_assert_eq(s.p99_us, 60000);
	cr_assert_eq(s.max_us, 60000);
	struct demand_stats z = {};
	demand_stats_of(v, 0, &z);
	cr_assert_eq(z.periods + z.mean_us + z.p50_us + z.max_us, 0, "no periods: zeros, nothing read");
}
