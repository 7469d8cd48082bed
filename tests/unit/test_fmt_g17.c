// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fmt_g17 against glibc's printf("%.17g"): byte for byte wherever it answers. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fmt_g17.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 1 where fmt_g17 answered (and matched), 0 where it left v to snprintf. */
static int same(double v)
{
	char want[64], got[40];
	size_t n = fmt_g17(v, got);

	if (!n)
		return 0;
	snprintf(want, sizeof(want), "%.17g", v);
	got[n] = 0;
	cr_assert_str_eq(got, want, "%a: %s, printf %s", v, got, want);
	return 1;
}

Test(fmt_g17, edges_and_ties)
{
	/* 2^50 + 0.25 and + 0.75: 18 digits ending in 5, ties to even at the 17th. */
	double v[] = { 1, 2, 0.5, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 12.5, 99.999999999999986, 100, 1e-4, 1e-5,
		       0.0001, 0.00011, 1.0000000000000002e-6, 123456.789, 1125899906842624.25, 1125899906842624.75, 2251799813685248.5,
		       4503599627370495.5, 9007199254740991.0, 1e15, 8999999999999999.0, 9.9999999999999995e-5,
		       9.9999999999999995e-6, 33.333333333333336, 50, 0.016666666666666666 };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		cr_assert(same(v[i]), "%.17g not covered", v[i]);
		cr_assert(same(-v[i]), "%.17g not covered", -v[i]);
	}
	/* Each side of every power of ten it covers: where the exponent's estimate is off. */
	for (int k = -6; k <= 15; k++) {
		double p = pow(10, k), a = p, b = p;
		for (int i = 0; i < 50; i++) {
			a = nextafter(a, 0);
			b = nextafter(b, INFINITY);
			same(a);
			same(b);
		}
		same(p);
	}
	/* Outside: left to printf. */
	char b[40];
	cr_assert_eq(fmt_g17(0, b), 0);
	cr_assert_eq(fmt_g17(NAN, b), 0);
	cr_assert_eq(fmt_g17(INFINITY, b), 0);
	cr_assert_eq(fmt_g17(9.9e-7, b), 0);
	cr_assert_eq(fmt_g17(1e-6, b), 0); /* the double nearest 1e-6 is under it */
	cr_assert_eq(fmt_g17(9007199254740992.0, b), 0);
}

Test(fmt_g17, random_values_as_printf)
{
	int covered = 0;

	/* Uniform in the exponent over the range and around it; then percentages as cgsched computes them. */
	for (int i = 0; i < 300000; i++) {
		double v = pow(10, -7 + 24.0 * (double)(next() >> 11) / 9007199254740992.0);
		covered += same(v);
	}
	for (int i = 0; i < 300000; i++) {
		uint64_t a = next() % 4000000000ULL, b = 1 + next() % 4000000000ULL;
		covered += same(100.0 * (double)a / (double)b);
	}
	/* Any bit pattern of the covered binades: ties and long expansions. */
	for (int i = 0; i < 300000; i++) {
		uint64_t bits = (next() & 0x000fffffffffffffULL) | ((uint64_t)(1003 + next() % 70) << 52);
		double v;
		memcpy(&v, &bits, sizeof(v));
		covered += same(v);
	}
	cr_assert_gt(covered, 700000, "only %d of 900000 covered", covered);
}
