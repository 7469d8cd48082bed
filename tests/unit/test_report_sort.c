// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Sorting rows for the table (only the top ones in order) and deltas of snapshots. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "figures/snapshot.h"

static struct report make_rows(size_t n, unsigned seed)
{
	struct report r = { .n = n, .rows = calloc(n, sizeof(struct row)) };

	srand(seed);
	for (size_t i = 0; i < n; i++) {
		r.rows[i].id = i + 1;
		/* Few distinct values: ties must fall back to the id. */
		r.rows[i].cpu_pct = rand() % 50;
	}
	return r;
}

static int before(const struct row *a, const struct row *b)
{
	return a->cpu_pct > b->cpu_pct || (a->cpu_pct == b->cpu_pct && a->id < b->id);
}

Test(report_sort, top_rows_match_a_full_sort)
{
	for (unsigned seed = 1; seed <= 20; seed++) {
		size_t n = 1 + seed * 97 % 3000, k = 1 + seed * 13 % 40;
		struct report full = make_rows(n, seed), part = make_rows(n, seed);

		report_sort(&full, NULL, SORT_CPU, 0);
		report_sort(&part, NULL, SORT_CPU, k);
		for (size_t i = 0; i + 1 < n; i++)
			cr_assert(before(&full.rows[i], &full.rows[i + 1]), "full sort out of order at %zu", i);
		for (size_t i = 0; i < k && i < n; i++)
			cr_assert_eq(part.rows[i].id, full.rows[i].id, "n=%zu k=%zu: row %zu differs", n, k, i);
		/* The rest is every other row, once. */
		char *seen = calloc(n + 1, 1);
		for (size_t i = 0; i < n; i++) {
			cr_assert(!seen[part.rows[i].id], "row %lu twice", (unsigned long)part.rows[i].id);
			seen[part.rows[i].id] = 1;
		}
		free(seen);
		free(full.rows);
		free(part.rows);
	}
}

static struct snapshot snap(const uint64_t *ids, const uint64_t *wakeups, size_t n)
{
	struct snapshot s = { .n = n, .cap = n, .ncpus = 1, .cg = calloc(n ? n : 1, sizeof(struct cg_sample)) };

	for (size_t i = 0; i < n; i++) {
		s.cg[i].id = ids[i];
		s.cg[i].c.wakeups = wakeups[i];
		s.cg[i].c.runq_count = wakeups[i];
	}
	return s;
}

Test(snapshot, delta_pairs_cgroups_by_id)
{
	/* prev and cur share 2, 5 and 9; 1 and 7 left, 3 and 10 are new. */
	uint64_t pid[] = { 1, 2, 5, 7, 9 }, pw[] = { 10, 20, 50, 70, 90 };
	uint64_t cid[] = { 2, 3, 5, 9, 10 }, cw[] = { 25, 3, 50, 95, 1 };
	struct snapshot prev = snap(pid, pw, 5), cur = snap(cid, cw, 5), d = { 0 };

	cr_assert_eq(snapshot_delta(&prev, &cur, &d), 0);
	/* 5 did nothing in the interval: left out. */
	uint64_t want_id[] = { 2, 3, 9, 10 }, want_w[] = { 5, 3, 5, 1 };
	cr_assert_eq(d.n, 4);
	for (size_t i = 0; i < d.n; i++) {
		cr_assert_eq(d.cg[i].id, want_id[i]);
		cr_assert_eq(d.cg[i].c.wakeups, want_w[i], "cgroup %lu", (unsigned long)want_id[i]);
	}
	snapshot_free(&d);
	snapshot_free(&prev);
	snapshot_free(&cur);
}

/* The few largest preemptors, most first; one seen again adds up (record sums rows). */
Test(report, preemptors_top_n)
{
	struct preemptor pre[REPORT_TOP_PREEMPTORS];
	int n = 0;
	const uint64_t counts[] = { 5, 9, 1, 7, 3, 8, 2 }; /* ids 1..7 */

	for (int i = 0; i < 7; i++)
		preemptors_add(pre, &n, i + 1, counts[i], NULL);
	cr_assert_eq(n, REPORT_TOP_PREEMPTORS);
	const uint64_t want_id[] = { 2, 6, 4, 1, 5 };
	for (int i = 0; i < n; i++)
		cr_assert_eq(pre[i].id, want_id[i], "place %d: id %llu", i, (unsigned long long)pre[i].id);
	preemptors_add(pre, &n, 5, 7, NULL); /* 3 + 7: now the first */
	cr_assert_eq(pre[0].id, 5);
	cr_assert_eq(pre[0].count, 10);
	preemptors_add(pre, &n, 3, 1, NULL); /* smaller than the last kept: left out */
	for (int i = 0; i < n; i++)
		cr_assert_neq(pre[i].id, 3);
}

/* enforce's log: every loss; unpaired events only past 10 and 1 % of the waits. */
Test(drops, notable_only_out_of_the_ordinary)
{
	uint64_t d[CGS_DROP__COUNT] = { 0 }, out[CGS_DROP__COUNT];

	d[CGS_DROP_RUNQ_NOSTART] = 1; /* a quiet host's one a second */
	cr_expect_eq(drops_notable(d, 50, out), 0);
	d[CGS_DROP_RUNQ_NOSTART] = 11;
	cr_expect_eq(drops_notable(d, 100000, out), 0, "11 of 100000 waits is ordinary");
	cr_expect_eq(drops_notable(d, 1000, out), 11, "11 of 1000 waits is not");
	cr_expect_eq(out[CGS_DROP_RUNQ_NOSTART], 11);
	d[CGS_DROP_RUNQ_NOSTART] = 0;
	d[CGS_DROP_CG_FULL] = 1; /* a loss: always */
	d[CGS_DROP_THR_STALE] = 3;
	cr_expect_eq(drops_notable(d, 0, out), 1);
	cr_expect_eq(out[CGS_DROP_CG_FULL], 1);
	cr_expect_eq(out[CGS_DROP_THR_STALE], 0);
}
