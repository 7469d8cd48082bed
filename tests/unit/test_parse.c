// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <criterion/criterion.h>
#include <errno.h>

#include "util.h"

Test(parse, u64_accepts_only_whole_numbers)
{
	uint64_t v;

	cr_assert_eq(parse_u64("42", 0, 100, &v), 0);
	cr_assert_eq(v, 42);
	cr_assert_eq(parse_u64("0", 0, 100, &v), 0);
	cr_assert_eq(parse_u64("abc", 0, 100, &v), -EINVAL, "abc is not 0");
	cr_assert_eq(parse_u64("", 0, 100, &v), -EINVAL);
	cr_assert_eq(parse_u64("12x", 0, 100, &v), -EINVAL);
	cr_assert_eq(parse_u64("-1", 0, 100, &v), -EINVAL, "no wrap-around of negatives");
	cr_assert_eq(parse_u64(" 1", 0, 100, &v), -EINVAL);
	cr_assert_eq(parse_u64("101", 0, 100, &v), -ERANGE);
	cr_assert_eq(parse_u64("5", 10, 100, &v), -ERANGE);
	cr_assert_eq(parse_u64("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
}

Test(parse, durations)
{
	uint64_t v;

	cr_assert_eq(parse_duration_ns("1", 1000000000ULL, &v), 0);
	cr_assert_eq(v, 1000000000ULL);
	cr_assert_eq(parse_duration_ns("1.5", 1000000000ULL, &v), 0);
	cr_assert_eq(v, 1500000000ULL);
	cr_assert_eq(parse_duration_ns("250ms", 1000000000ULL, &v), 0);
	cr_assert_eq(v, 250000000ULL);
	cr_assert_eq(parse_duration_ns("100us", 1, &v), 0);
	cr_assert_eq(v, 100000ULL);
	cr_assert_eq(parse_duration_ns("2m", 1, &v), 0);
	cr_assert_eq(v, 120000000000ULL);
	cr_assert_eq(parse_duration_ns("7ns", 1000, &v), 0);
	cr_assert_eq(v, 7);
	cr_assert_eq(parse_duration_ns("5parsecs", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("-1", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("s", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("nan", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("1e30s", 1, &v), -ERANGE);
}

Test(format, durations_in_human_units)
{
	char b[32];

	cr_assert_str_eq(fmt_duration(b, sizeof(b), 0), "0ns");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 812), "812ns");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 1500), "1.50us");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 27900), "27.9us");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 3270000), "3.27ms");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 999999999), "1.00s", "no '1000ms'");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 125000000000ULL), "125s");
}
