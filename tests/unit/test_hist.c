// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cgsched.h"
#include "report/hist.h"

Test(hist, slot_boundaries)
{
	cr_assert_eq(hist_slot(0, 32), 0);
	cr_assert_eq(hist_slot(1, 32), 0);
	cr_assert_eq(hist_slot(2, 32), 1);
	cr_assert_eq(hist_slot(3, 32), 1);
	cr_assert_eq(hist_slot(4, 32), 2);
	cr_assert_eq(hist_slot(1023, 32), 9);
	cr_assert_eq(hist_slot(1024, 32), 10);
	cr_assert_eq(hist_slot(~0ULL, 32), 31, "values past the last slot land in it");
	for (unsigned i = 1; i < 31; i++) {
		cr_assert_eq(hist_slot(hist_slot_low(i), 32), i);
		cr_assert_eq(hist_slot(hist_slot_high(i), 32), i);
		cr_assert_eq(hist_slot_high(i - 1) + 1, hist_slot_low(i), "slots are contiguous");
	}
	cr_assert_eq(hist_slot_low(0), 0);
	cr_assert_eq(hist_slot_high(0), 1);
}

Test(hist, percentile_interpolates_inside_a_slot)
{
	uint64_t s[CGS_HIST_SLOTS] = {};

	s[10] = 100; /* all in 1024..2047 */
	cr_assert_float_eq(hist_percentile(s, CGS_HIST_SLOTS, 50, 0), 1536.0, 0.01);
	cr_assert_float_eq(hist_percentile(s, CGS_HIST_SLOTS, 100, 0), 2048.0, 0.01);
	cr_assert_float_eq(hist_percentile(s, CGS_HIST_SLOTS, 100, 1900), 1900.0, 0.01,
			   "capped at the known maximum");
	cr_assert_float_eq(hist_percentile(s, CGS_HIST_SLOTS, 1, 0), 1034.24, 0.01);
}

Test(hist, percentile_picks_the_right_slot)
{
	uint64_t s[CGS_HIST_SLOTS] = {};

	s[2] = 98; /* 4..7 */
	s[20] = 2; /* ~1 s outliers */
	double p50 = hist_percentile(s, CGS_HIST_SLOTS, 50, 0);
	double p99 = hist_percentile(s, CGS_HIST_SLOTS, 99, 0);
	cr_assert(p50 >= 4 && p50 < 8, "p50 %f", p50);
	cr_assert(p99 >= 1048576 && p99 < 2097152, "p99 %f", p99);
	cr_assert_eq(hist_percentile((uint64_t[CGS_HIST_SLOTS]){}, CGS_HIST_SLOTS, 99, 0), 0);
	cr_assert_eq(hist_total(s, CGS_HIST_SLOTS), 100);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	char *buf = calloc(1, 65536);
	fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

Test(hist, runqlat_layout_matches_golden)
{
	uint64_t s[CGS_HIST_SLOTS] = { 3, 0, 10, 24, 40, 1 };
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	hist_print(f, s, CGS_HIST_SLOTS, "usecs");
	fclose(f);
	char *want = read_all("tests/golden/hist_usecs.txt");
	cr_assert_str_eq(got, want);
	free(got);
	free(want);
}

Test(hist, empty_histogram_prints_nothing)
{
	uint64_t s[CGS_HIST_SLOTS] = {};
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	hist_print(f, s, CGS_HIST_SLOTS, "usecs");
	fclose(f);
	cr_assert_eq(len, 0);
	free(got);
}
