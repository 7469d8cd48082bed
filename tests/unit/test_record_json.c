// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The record report's JSON, against a golden file: the versioned schema must not drift. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "report/record.h"

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

Test(record, report_json_matches_golden)
{
	static char *const argv[] = { "./bench", "--fast", NULL };
	struct cg_sample s = { .id = 31 };
	struct row row = { .id = 31, .path = "/cgsched-record-1", .s = &s };
	struct snapshot d = { .n = 1, .cg = &s };
	struct report r = { .interval_ns = 4000000000ULL, .d = &d, .n = 1, .rows = &row };
	struct record_summary rs = {
		.ti = { .kernel = "6.18.0-test", .cgroup_version = 1, .sched_backend = "tp_btf",
			.thr_backend = "tracepoint", .task_state = "task_storage", .ncpus = 2 },
		.argv = argv,
		.cgroup = "/cgsched-record-1", .limits = { .has_max = true, .quota_us = 25000, .period_us = 100000 },
		.start_time = 1795262815.5, .wall_ns = 4000000000ULL, .exit_status = 0, .exit_signal = -1,
		.k_ok = true, .k = { .ok = true, .quota_us = 25000, .period_us = 100000 },
		.k_periods = 40, .k_throttled = 39, .k_throttled_ns = 2900000000ULL,
		.k_oncpu_source = "cpuacct.usage", .k_oncpu_ns = 1000400000ULL, .k_oncpu_spread_ns = 26000,
	};

	s.c.oncpu_ns = 1000000000ULL;
	s.c.sw_vol = 1;
	s.c.sw_invol = 43;
	s.c.runq_count = 4;
	s.c.runq_sum_ns = 48000;
	s.c.runq_slots[3] = 4;
	s.c.thr_count = 39;
	s.c.thr_ns = 2920000000ULL;
	s.c.thr_wait_ns = 2920000000ULL;
	s.c.thr_slots[16] = 39;
	s.runq_max_ns = 15800;
	s.thr_max_ns = 75100000;
	s.thr_cpu = (struct thr_cpu[2]){ { 39, 2920000000ULL }, { 0, 0 } };
	row.cpu_pct = 25.0;
	row.runq_p50_ns = 12000;
	row.runq_p99_ns = 15800;
	row.thr_pct = 73.0;
	row.thr_p99_ns = 75100000;
	row.runq_max_ns = s.runq_max_ns;
	row.thr_max_ns = s.thr_max_ns;
	row.npre = 1;
	row.pre[0] = (struct preemptor){ .id = 1, .count = 4, .path = "/" };
	rs.drops[CGS_DROP_ONCPU_NOSTART] = 1;
	record_aggregate(&rs, &r);

	size_t len;
	char *got = record_json_text(&rs, &len);
	char *want = read_all("tests/golden/record.json");
	if (getenv("CGS_UPDATE_GOLDEN")) {
		FILE *f = fopen("tests/golden/record.json", "w");
		fputs(got, f);
		fclose(f);
	}
	cr_assert_str_eq(got, want);
	free(got);
	free(want);
}

/* Wall time throttled: the union of episodes, whichever CPUs they were on. */
Test(record, episodes_union)
{
	const struct cgs_episode apart[] = {
		{ .start_ns = 100, .end_ns = 175, .cpu = 0 },
		{ .start_ns = 200, .end_ns = 275, .cpu = 1 }, /* the task moved: still adds */
		{ .start_ns = 300, .end_ns = 375, .cpu = 0 },
	};
	const struct cgs_episode overlapping[] = {
		{ .start_ns = 300, .end_ns = 380, .cpu = 1 },
		{ .start_ns = 100, .end_ns = 200, .cpu = 0 },
		{ .start_ns = 150, .end_ns = 210, .cpu = 1 }, /* inside and past the first */
		{ .start_ns = 120, .end_ns = 130, .cpu = 1 }, /* wholly inside */
		{ .start_ns = 210, .end_ns = 220, .cpu = 0 }, /* touching */
		{ .start_ns = 500, .end_ns = 500, .cpu = 0 }, /* empty */
		{ .start_ns = 600, .end_ns = 900, .cpu = 0, .flags = CGS_EP_NO_TIME }, /* periods only: no time */
	};

	cr_expect_eq(episodes_union_ns(apart, 3), 225);
	cr_expect_eq(episodes_union_ns(overlapping, 7), 120 + 80);
	cr_expect_eq(episodes_union_ns(overlapping, 0), 0);
}

/* The record summary's throttled wall time comes from the episodes when the list is complete. */
Test(record, thr_wall_from_episodes)
{
	const struct cgs_episode e[] = {
		{ .start_ns = 0, .end_ns = 75, .cpu = 0 },
		{ .start_ns = 100, .end_ns = 175, .cpu = 1 },
	};
	struct record_summary rs = { .wall_ns = 200, .thr_wall_ns = 75, .ep = { .e = e, .n = 2 } };

	rs.c.thr_count = 2;
	cr_expect_eq(record_thr_wall_ns(&rs), 150, "complete list: the union");
	rs.c.thr_count = 3;
	cr_expect_eq(record_thr_wall_ns(&rs), 75, "a lost episode: the longest CPU's share");
	rs.c.thr_count = 2;
	rs.ep.truncated = 1;
	cr_expect_eq(record_thr_wall_ns(&rs), 75, "a truncated list: the longest CPU's share");
}
