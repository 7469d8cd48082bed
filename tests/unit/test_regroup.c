// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* snapshot_regroup: top --group-by's sums, slot by slot. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "figures/snapshot.h"

/* Cgroups 1 and 2 are one group (id 10); 3 is of none; 4 is group 20 alone. */
static uint64_t map(void *ctx, uint64_t id)
{
	(void)ctx;
	return id == 1 || id == 2 ? 10 : id == 4 ? 20 : id;
}

Test(regroup, sums_counters_slots_maxima_and_preemptions)
{
	struct cg_sample cg[4] = {};
	struct preempt_sample pre[] = {
		{ 1, 3, 5, 50 }, { 2, 3, 7, 70 }, /* both members by 3: one pair, 12 (120 ns behind) */
		{ 3, 1, 2, 0 }, { 3, 2, 4, 9 }, /* 3 by both members: one pair, 6 (9 ns) */
		{ 4, 1, 1, 1 },
	};
	struct snapshot d = { .t_ns = 9, .ncpus = 2, .n = 4, .cg = cg, .npre = 5, .pre = pre }, g;

	for (int i = 0; i < 4; i++) {
		cg[i].id = i + 1;
		cg[i].c.oncpu_ns = 1000 * (i + 1);
		cg[i].c.runq_count = i + 1;
		cg[i].c.runq_slots[i] = 10 + i;
		cg[i].runq_max_ns = 100 * (4 - i);
	}
	d.drops[0] = 3;
	cg[1].thr_cpu = (struct thr_cpu[2]){ { 1, 50 }, { 2, 60 } };
	cr_assert_eq(snapshot_regroup(&d, map, NULL, &g), 0);
	cr_assert_eq(g.n, 3, "groups 10 and 20 and cgroup 3: %zu samples", g.n);
	cr_assert_eq(g.cg[0].id, 3);
	cr_assert_eq(g.cg[1].id, 10);
	cr_assert_eq(g.cg[2].id, 20);
	const struct cg_sample *s = snapshot_find(&g, 10);
	cr_assert_eq(s->c.oncpu_ns, 3000);
	cr_assert_eq(s->c.runq_count, 3);
	cr_assert_eq(s->c.runq_slots[0], 10);
	cr_assert_eq(s->c.runq_slots[1], 11);
	cr_assert_eq(s->runq_max_ns, 400, "the larger maximum");
	cr_assert_eq(s->thr_cpu[1].ns, 60);
	cr_assert_eq(snapshot_find(&g, 3)->c.runq_slots[2], 12);
	cr_assert_eq(g.drops[0], 3);
	cr_assert_eq(g.npre, 3, "pairs: (3,10), (10,3), (20,10); got %zu", g.npre);
	cr_assert_eq(g.pre[0].victim, 3);
	cr_assert_eq(g.pre[0].preemptor, 10);
	cr_assert_eq(g.pre[0].count, 6);
	cr_assert_eq(g.pre[0].behind_ns, 9);
	cr_assert_eq(g.pre[1].victim, 10);
	cr_assert_eq(g.pre[1].count, 12);
	cr_assert_eq(g.pre[1].behind_ns, 120, "behind times add up as counts do");
	cr_assert_eq(g.pre[2].victim, 20);
	cg[1].thr_cpu = NULL;
	snapshot_free(&g);
}

/*
 * Waits held by an ancestor's quota: inherited when the ancestor is of
 * another group (named by that group), the group's own when it is in it.
 */
Test(regroup, inherited_throttling_by_group)
{
	struct cg_sample cg[3] = {};
	struct snapshot d = { .t_ns = 9, .ncpus = 2, .n = 3, .cg = cg }, g;

	for (int i = 0; i < 3; i++)
		cg[i].id = i + 1;
	cg[1].c.thr_wait_ns = cg[1].c.thr_inh_ns = 500; /* 2, held by 1: both in group 10 */
	cg[1].thr_inh_by = 1;
	cg[2].c.thr_wait_ns = cg[2].c.thr_inh_ns = 70; /* 3, held by 2: group 10 */
	cg[2].thr_inh_by = 2;
	cr_assert_eq(snapshot_regroup(&d, map, NULL, &g), 0);
	const struct cg_sample *s = snapshot_find(&g, 10);
	cr_assert_eq(s->c.thr_wait_ns, 500);
	cr_assert_eq(s->c.thr_inh_ns, 0, "the group's own quota: %llu", (unsigned long long)s->c.thr_inh_ns);
	cr_assert_eq(s->thr_inh_by, 0);
	s = snapshot_find(&g, 3);
	cr_assert_eq(s->c.thr_inh_ns, 70);
	cr_assert_eq(s->thr_inh_by, 10, "named by the ancestor's group");
	snapshot_free(&g);
}
