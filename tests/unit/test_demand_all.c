// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* export's demand per period: the window's codes and the histogram's buckets (session/demand_all.h). */
#include <criterion/criterion.h>
#include <math.h>

#include "session/demand_all.h"

/*
 * A period's demand comes back from its code within 2.2 % (half a code:
 * 2^(1/32) - 1). The codes span 2^(253/16), 58,000 to 1: from the whole
 * machine down to 1/58,000 of it.
 */
Test(demand_all, codes_round_trip_within_a_half_step)
{
	const uint64_t P = 100000000ULL;

	for (int ncpus = 1; ncpus <= 1024; ncpus *= 4)
		for (double cpus = ncpus / 58000.0; cpus <= ncpus; cpus *= 1.013) {
			uint64_t ns = (uint64_t)(cpus * P);
			uint8_t c = demand_code(ns, P, ncpus);
			double back = (double)demand_uncode(c, P, ncpus);
			cr_assert(c >= 1 && c <= 254, "code %u for %llu ns", c, (unsigned long long)ns);
			cr_assert(fabs(back - ns) / ns <= 0.0219, "%d CPUs: %llu ns came back as %.0f (code %u)", ncpus,
				  (unsigned long long)ns, back, c);
		}
	cr_assert_eq(demand_code(0, P, 2), 0);
	cr_assert_eq(demand_uncode(0, P, 2), 0);
	cr_assert_eq(demand_uncode(DEM_CODE_NONE, P, 2), 0);
}

/* Each demand falls in the bucket whose bound is the first at or above it; idle periods in bucket 0. */
Test(demand_all, buckets_hold_what_their_bounds_say)
{
	const uint64_t P = 100000000ULL;
	const unsigned nb = DEM_PER_OCT * (1 - DEM_OCT_LO) + 1; /* 2 CPUs */

	cr_assert_eq(demand_bucket_of(0, P, nb), 0);
	for (double cpus = 0.0012; cpus < 2; cpus *= 1.007) {
		uint64_t ns = (uint64_t)(cpus * P);
		unsigned b = demand_bucket_of(ns, P, nb);
		double x = (double)ns / P;
		cr_assert(b >= 1 && b < nb);
		cr_assert(x <= demand_bucket_le(b) * (1 + 1e-9), "%.6f CPUs over bucket %u's bound %.6f", x, b,
			  demand_bucket_le(b));
		cr_assert(b == 1 || x > demand_bucket_le(b - 1) * (1 - 1e-9), "%.6f CPUs at or under bucket %u's bound",
			  x, b - 1);
	}
	/* 4.4 % a bucket: a quantile read from them is within that. */
	cr_assert_float_eq(demand_bucket_le(17) / demand_bucket_le(16), exp2(1.0 / 16), 1e-12);
}
