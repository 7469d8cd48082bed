// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The kernel's CPU time of a window (figures/kusage.c): schedstat's first field, and deltas. */
#include <criterion/criterion.h>
#include <string.h>

#include "figures/kusage.h"

Test(kusage, schedstat_first_field)
{
	uint64_t ns = 0;

	cr_assert_eq(kusage_parse_schedstat("1234567 890 12\n", &ns), 0);
	cr_assert_eq(ns, 1234567);
	cr_assert_eq(kusage_parse_schedstat("18446744073709551615 0 0\n", &ns), 0);
	cr_assert_eq(ns, UINT64_MAX);
	cr_assert_neq(kusage_parse_schedstat("", &ns), 0);
	cr_assert_neq(kusage_parse_schedstat("abc 1 2\n", &ns), 0);
	cr_assert_neq(kusage_parse_schedstat("12x 1 2\n", &ns), 0);
	cr_assert_neq(kusage_parse_schedstat("18446744073709551616 0 0\n", &ns), 0);
}

Test(kusage, cumulative_sources_subtract)
{
	struct kusage a = { .source = "cpuacct.usage", .ns = 1000 }, b = { .source = "cpuacct.usage", .ns = 5000 };
	struct kusage c = { .source = "cpu.stat", .ns = 9000 };
	uint64_t ns;
	unsigned moved;

	cr_assert_eq(kusage_delta(&a, &b, &ns, &moved), 0);
	cr_assert_eq(ns, 4000);
	cr_assert_eq(moved, 0);
	/* Never below zero, and two sources never mix. */
	cr_assert_eq(kusage_delta(&b, &a, &ns, &moved), 0);
	cr_assert_eq(ns, 0);
	cr_assert_neq(kusage_delta(&a, &c, &ns, &moved), 0);
	struct kusage none = { 0 };
	cr_assert_neq(kusage_delta(&none, &a, &ns, &moved), 0);
}

/* Threads in both reads add their growth; one in a single read is counted, its time left out. */
Test(kusage, threads_matched_by_tid)
{
	struct kusage_thread t0[] = { { 10, 100 }, { 11, 500 }, { 20, 7 } };
	struct kusage_thread t1[] = { { 10, 400 }, { 20, 9 }, { 30, 1000 } };
	struct kusage a = { .source = "schedstat", .t = t0, .n = 3 };
	struct kusage b = { .source = "schedstat", .t = t1, .n = 3 };
	uint64_t ns;
	unsigned moved;

	cr_assert_eq(kusage_delta(&a, &b, &ns, &moved), 0);
	cr_assert_eq(ns, 300 + 2);
	cr_assert_eq(moved, 2); /* 11 went, 30 came */
}
