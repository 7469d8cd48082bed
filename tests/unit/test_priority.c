// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --priority's values: what is taken, and everything else refused whole. */
#include <criterion/criterion.h>

#include "lib/priority.h"

Test(priority, takes_rt_and_raised_nice)
{
	struct cgs_priority p;
	char buf[32];

	cr_assert_eq(priority_parse("rt", &p), 0);
	cr_assert(p.kind == CGS_PRIO_RT && p.value == CGS_PRIO_RT_DEFAULT);
	cr_assert_eq(priority_parse("rt:99", &p), 0);
	cr_assert(p.kind == CGS_PRIO_RT && p.value == 99);
	cr_assert_str_eq(priority_name(&p, buf, sizeof(buf)), "rt:99");
	cr_assert_eq(priority_parse("nice:-20", &p), 0);
	cr_assert(p.kind == CGS_PRIO_NICE && p.value == -20);
	cr_assert_str_eq(priority_name(&p, buf, sizeof(buf)), "nice:-20");
	cr_assert_eq(priority_parse("nice:-1", &p), 0);
	cr_assert(p.kind == CGS_PRIO_NICE && p.value == -1);
}

Test(priority, refuses_the_rest_and_sets_nothing)
{
	const char *bad[] = { "", "rt:", "rt:0", "rt:100", "rt:-1", "rt:+5", "rt:5x", "rt: 5", "RT", "rt5",
			      "fifo", "nice", "nice:", "nice:0", "nice:-0", "nice:5", "nice:-21", "nice:--1",
			      "nice:-1x", "nice:-" };
	struct cgs_priority p = { CGS_PRIO_DEFAULT, 42 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_neq(priority_parse(bad[i], &p), 0, "'%s' was taken", bad[i]);
		cr_assert(p.kind == CGS_PRIO_DEFAULT && p.value == 42, "'%s' set something", bad[i]);
	}
}
