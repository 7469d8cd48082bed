// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <criterion/criterion.h>
#include <errno.h>

#include "limits/cpu_limits.h"

static int cm(const char *s, uint64_t *q, uint64_t *p)
{
	const char *why;
	return parse_cpu_max(s, q, p, &why);
}

Test(limits, cpu_max_forms)
{
	uint64_t q, p;

	cr_assert_eq(cm("400000/1000000", &q, &p), 0);
	cr_assert_eq(q, 400000);
	cr_assert_eq(p, 1000000);
	cr_assert_eq(cm("50000", &q, &p), 0);
	cr_assert_eq(q, 50000);
	cr_assert_eq(p, 100000, "default period 100 ms");
	cr_assert_eq(cm("25%", &q, &p), 0);
	cr_assert_eq(q, 25000);
	cr_assert_eq(cm("150%", &q, &p), 0);
	cr_assert_eq(q, 150000, "more than one CPU");
	cr_assert_eq(cm("2cpus", &q, &p), 0);
	cr_assert_eq(q, 200000);
	cr_assert_eq(cm("0.5cpu", &q, &p), 0);
	cr_assert_eq(q, 50000);
	cr_assert_eq(cm("50ms/100ms", &q, &p), 0);
	cr_assert_eq(q, 50000);
	cr_assert_eq(p, 100000);
	cr_assert_eq(cm("max", &q, &p), 0);
	cr_assert_eq(q, 0, "max is unlimited");
}

Test(limits, cpu_max_rejects)
{
	uint64_t q, p;

	cr_assert_eq(cm("", &q, &p), -EINVAL);
	cr_assert_eq(cm("lots", &q, &p), -EINVAL);
	cr_assert_eq(cm("-5%", &q, &p), -EINVAL);
	cr_assert_eq(cm("25%%", &q, &p), -EINVAL);
	cr_assert_eq(cm("10/", &q, &p), -EINVAL);
	cr_assert_eq(cm("/100000", &q, &p), -EINVAL);
	cr_assert_eq(cm("0.5%", &q, &p), -ERANGE, "500 us is below the kernel's 1 ms");
	cr_assert_eq(cm("10000/5000000", &q, &p), -ERANGE, "period above 1 s");
	cr_assert_eq(cm("10000/500", &q, &p), -ERANGE, "period below 1 ms");
	/* The kernel's bound: 2^44-1 us of quota, and no llround overflow on the way. */
	cr_assert_eq(cm("1e17%", &q, &p), -EINVAL, "no exponents");
	cr_assert_eq(cm("100000000000000000%", &q, &p), -ERANGE);
	cr_assert_eq(cm("1000000000000000/100000", &q, &p), -ERANGE);
	cr_assert_eq(cm("17592186044416/1000000", &q, &p), -ERANGE, "2^44 us");
	cr_assert_eq(cm("17592186044415/1000000", &q, &p), 0, "2^44-1 us");
	cr_assert_eq(q, 17592186044415ULL);
	cr_assert_eq(cm("175921860cpus", &q, &p), 0);
	cr_assert_eq(cm("175921861cpus", &q, &p), -ERANGE);
	cr_assert_eq(cm("0x10%", &q, &p), -EINVAL);
	cr_assert_eq(cm(" 50%", &q, &p), -EINVAL);
}

Test(limits, weight_and_shares)
{
	uint64_t w;
	const char *why;

	cr_assert_eq(parse_cpu_weight("100", &w, &why), 0);
	cr_assert_eq(w, 100);
	cr_assert_neq(parse_cpu_weight("0", &w, &why), 0);
	cr_assert_neq(parse_cpu_weight("10001", &w, &why), 0);
	cr_assert_neq(parse_cpu_weight("1e3", &w, &why), 0);
	/* The kernel's conversions: weight 100 <-> shares 1024. */
	cr_assert_eq(weight_to_shares(100), 1024);
	cr_assert_eq(weight_to_shares(1), 10);
	cr_assert_eq(weight_to_shares(10000), 102400);
	cr_assert_eq(shares_to_weight(1024), 100);
	cr_assert_eq(shares_to_weight(2), 1);
	cr_assert_eq(shares_to_weight(262144), 10000, "clamped to v2's range");
	for (uint64_t x = 1; x <= 10000; x += 37)
		cr_assert_eq(shares_to_weight(weight_to_shares(x)), x, "round trip of %lu", x);
}
