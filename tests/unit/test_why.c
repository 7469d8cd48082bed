// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The causes of the waits (report/why.c) and the PSI parser (kernel/psi.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/psi.h"
#include "report/why.h"

static uint64_t sum_parts(const struct why *w)
{
	uint64_t s = 0;

	for (int i = 0; i < w->n; i++)
		s += w->p[i].ns;
	return s;
}

/* Every part in, largest first, adding up to run-queue + throttled waits. */
Test(why, parts_add_up_largest_first)
{
	struct cg_counters c = {};
	struct why_named named[] = { { 40, 300 }, { 41, 100 } };
	struct why w;

	c.runq_sum_ns = 1000;
	c.wb_same_ns = 100;
	c.wb_other_ns = 500;  /* 300 + 100 named, 100 not */
	c.wb_kthread_ns = 50;
	c.wb_rt_ns = 20;
	c.wb_idle_ns = 30;
	c.wb_unknown_ns = 300;
	c.thr_wait_ns = 2000;
	c.thr_inh_ns = 1500;  /* 500 its own quota */
	why_build(&w, &c, 7, named, 2, 0, 1000000);
	cr_assert_eq(w.total_ns, 3000);
	cr_assert_eq(sum_parts(&w), 3000);
	cr_assert_eq(w.p[0].cause, WHY_ANCESTOR_QUOTA);
	cr_assert_eq(w.p[0].id, 7);
	cr_assert_eq(w.p[1].cause, WHY_OWN_QUOTA);
	cr_assert_eq(w.p[1].ns, 500);
	for (int i = 1; i < w.n; i++)
		cr_assert_geq(w.p[i - 1].ns, w.p[i].ns, "part %d out of order", i);
	int found = 0;
	for (int i = 0; i < w.n; i++) {
		if (w.p[i].cause == WHY_NAMED && w.p[i].id == 40 && w.p[i].ns == 300)
			found++;
		if (w.p[i].cause == WHY_OTHER)
			cr_assert_eq(w.p[i].ns, 100, "the unnamed rest");
	}
	cr_assert_eq(found, 1);
}

/* Named time never exceeds the other cgroups' total; "inside" moves to its own. */
Test(why, named_capped_and_inside_moved)
{
	struct cg_counters c = {};
	struct why_named named[] = { { 40, 900 } };
	struct why w;

	c.runq_sum_ns = 1000;
	c.wb_other_ns = 800;
	c.wb_same_ns = 200;
	why_build(&w, &c, 0, named, 1, 300, 1000);
	cr_assert_eq(sum_parts(&w), 1000);
	cr_assert_eq(w.p[0].cause, WHY_SAME, "200 + 300 inside");
	cr_assert_eq(w.p[0].ns, 500);
	cr_assert_eq(w.p[1].cause, WHY_NAMED);
	cr_assert_eq(w.p[1].ns, 500, "capped at what is left of other_cgroups");
	cr_assert_eq(w.n, 2);
}

Test(why, named_keeps_the_largest)
{
	struct why_named n[WHY_NAMED_MAX];
	int k = 0;

	for (uint64_t id = 1; id <= 8; id++)
		why_named_add(n, &k, id, id * 10);
	why_named_add(n, &k, 8, 5);
	cr_assert_eq(k, WHY_NAMED_MAX);
	cr_assert_eq(n[0].id, 8);
	cr_assert_eq(n[0].ns, 85);
	cr_assert_eq(n[WHY_NAMED_MAX - 1].id, 4);
}

Test(psi, parses_some_total)
{
	uint64_t v = 0;

	cr_assert_eq(psi_parse_some("some avg10=0.00 avg60=0.20 avg300=3.01 total=1269806541\n"
				    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", &v), 0);
	cr_assert_eq(v, 1269806541ULL);
	cr_assert_eq(psi_parse_some("full avg10=0.00 total=5\nsome avg10=1.00 total=7", &v), 0);
	cr_assert_eq(v, 7);
	cr_assert_eq(psi_parse_some("some avg10=0.00\nfull total=3\n", &v), -1, "total on another line");
	cr_assert_eq(psi_parse_some("some total=-1\n", &v), -1);
	cr_assert_eq(psi_parse_some("some total=12x\n", &v), -1);
	cr_assert_eq(psi_parse_some("", &v), -1);
}
