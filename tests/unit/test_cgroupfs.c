// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "figures/kstat.h"
#include "kernel/cgroupfs.h"

Test(mountinfo, parses_fields_and_escapes)
{
	struct mountinfo_ent e;

	cr_assert_eq(mountinfo_parse_line(
		"35 25 0:30 / /sys/fs/cgroup/cpu rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,cpu\n",
		&e), 0);
	cr_assert_str_eq(e.mnt, "/sys/fs/cgroup/cpu");
	cr_assert_str_eq(e.root, "/");
	cr_assert_str_eq(e.fstype, "cgroup");
	cr_assert_str_eq(e.superopts, "rw,cpu");
	cr_assert_eq(mountinfo_parse_line(
		"40 25 0:31 /a /mnt/my\\040cg rw master:1 shared:2 - cgroup2 none rw,nsdelegate\n", &e), 0);
	cr_assert_str_eq(e.mnt, "/mnt/my cg", "octal escapes decoded");
	cr_assert_str_eq(e.root, "/a");
	cr_assert_str_eq(e.fstype, "cgroup2");
	cr_assert_neq(mountinfo_parse_line("garbage\n", &e), 0);
	cr_assert_neq(mountinfo_parse_line("1 2 3:4 / /x rw no-separator\n", &e), 0);
}

Test(mountinfo, option_tokens_are_exact)
{
	cr_assert(opts_have("rw,cpu,cpuacct", "cpu"));
	cr_assert(opts_have("rw,cpuacct,cpu", "cpu"));
	cr_assert(!opts_have("rw,cpuset", "cpu"), "cpuset is not cpu");
	cr_assert(!opts_have("rw,cpuacct", "cpu"));
	cr_assert(!opts_have("", "cpu"));
}

static bool yes(const char *m) { return true; }
static bool no(const char *m) { return false; }

static int pick(const char *text, bool (*has)(const char *), int *ver, char *mnt)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = mountinfo_find_cpu(f, ver, mnt, PATH_MAX, has);
	fclose(f);
	return r;
}

Test(mountinfo, finds_the_cpu_hierarchy)
{
	char mnt[PATH_MAX];
	int ver = 0;
	const char *hybrid =
		"30 25 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
		"31 25 0:27 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
		"32 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n";
	cr_assert_eq(pick(hybrid, yes, &ver, mnt), 0);
	cr_assert_eq(ver, 1, "v1 cpu wins: the controller can be bound to one hierarchy only");
	cr_assert_str_eq(mnt, "/sys/fs/cgroup/cpu,cpuacct");

	const char *pure = "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	cr_assert_eq(pick(pure, yes, &ver, mnt), 0);
	cr_assert_eq(ver, 2);
	cr_assert_str_eq(mnt, "/sys/fs/cgroup");
	cr_assert_eq(pick(pure, no, &ver, mnt), -ENOENT, "cgroup2 without cpu is not it");
	cr_assert_eq(pick("", yes, &ver, mnt), -ENOENT);
}

Test(cgpath, normalises)
{
	char o[PATH_MAX];
	const char *m = "/sys/fs/cgroup/cpu";

	cr_assert_eq(cgpath_normalize(m, "/", o, sizeof(o)), 0);
	cr_assert_str_eq(o, "/");
	cr_assert_eq(cgpath_normalize(m, "a/b", o, sizeof(o)), 0);
	cr_assert_str_eq(o, "/a/b");
	cr_assert_eq(cgpath_normalize(m, "//a///b/", o, sizeof(o)), 0);
	cr_assert_str_eq(o, "/a/b");
	cr_assert_eq(cgpath_normalize(m, "/a/./b", o, sizeof(o)), 0);
	cr_assert_str_eq(o, "/a/b");
	cr_assert_eq(cgpath_normalize(m, "/sys/fs/cgroup/cpu/x/y", o, sizeof(o)), 0);
	cr_assert_str_eq(o, "/x/y", "absolute paths under the mount are stripped");
	cr_assert_eq(cgpath_normalize(m, "/sys/fs/cgroup/cpu", o, sizeof(o)), 0);
	cr_assert_str_eq(o, "/");
	cr_assert_eq(cgpath_normalize(m, "/sys/fs/cgroup/cpuset/x", o, sizeof(o)), 0);
	cr_assert_str_eq(o, "/sys/fs/cgroup/cpuset/x", "a sibling mount is not stripped");
	cr_assert_eq(cgpath_normalize(m, "../etc", o, sizeof(o)), -EINVAL);
	cr_assert_eq(cgpath_normalize(m, "/a/../..", o, sizeof(o)), -EINVAL);
	cr_assert_eq(cgpath_normalize(m, "", o, sizeof(o)), -EINVAL);
	cr_assert_eq(cgpath_normalize(m, "/abcdef", o, 4), -ENAMETOOLONG);
}

Test(keyed, reads_flat_keyed_files)
{
	const char *v1 = "nr_periods 43\nnr_throttled 41\nthrottled_time 9460000000\n";
	uint64_t v;

	cr_assert_eq(keyed_get(v1, "nr_throttled", &v), 0);
	cr_assert_eq(v, 41);
	cr_assert_eq(keyed_get(v1, "throttled_time", &v), 0);
	cr_assert_eq(v, 9460000000ULL);
	cr_assert_eq(keyed_get(v1, "nr_periods", &v), 0);
	cr_assert_eq(v, 43);
	cr_assert_eq(keyed_get(v1, "nr", &v), -ENOENT, "keys match whole");
	cr_assert_eq(keyed_get(v1, "usage_usec", &v), -ENOENT);
}

/* The kernel's figures of a cgroup (figures/kstat.h) from its files' texts. */

static const char v1_stat_bursts[] = "nr_periods 43\nnr_throttled 41\nthrottled_time 9460000000\n"
				     "nr_bursts 7\nburst_time 12345678\n";
static const char v1_stat_old[] = "nr_periods 43\nnr_throttled 41\nthrottled_time 9460000000\n";
static const char v2_stat_bursts[] = "usage_usec 1000\nuser_usec 600\nsystem_usec 400\n"
				     "core_sched.force_idle_usec 0\nnr_periods 10\nnr_throttled 3\n"
				     "throttled_usec 2500\nnr_bursts 2\nburst_usec 1500\n";
static const char v2_stat_old[] = "usage_usec 1000\nuser_usec 600\nsystem_usec 400\n"
				  "nr_periods 10\nnr_throttled 3\nthrottled_usec 2500\n";

Test(kstat, v1_shares_and_bursts)
{
	struct kstat k;

	cr_assert_eq(kstat_parse_v1("50000\n", "100000\n", "20000\n", "512\n", v1_stat_bursts, &k), 0);
	cr_assert(k.ok);
	cr_assert_eq(k.quota_us, 50000);
	cr_assert_eq(k.period_us, 100000);
	cr_assert_eq(k.burst_us, 20000);
	cr_assert_eq(k.shares, 512);
	cr_assert_eq(k.weight, 50, "DIV_ROUND_CLOSEST(512 * 100, 1024)");
	cr_assert_eq(k.nr_periods, 43);
	cr_assert_eq(k.nr_throttled, 41);
	cr_assert_eq(k.throttled_ns, 9460000000ULL);
	cr_assert(k.has_bursts);
	cr_assert_eq(k.nr_bursts, 7);
	cr_assert_eq(k.burst_ns, 12345678, "v1 burst_time is in ns");
	cr_assert_eq(k.usage_ns, -1);
}

Test(kstat, v1_without_bursts_or_shares)
{
	struct kstat k;

	/* Before 5.14: no cpu.cfs_burst_us, no burst lines. */
	cr_assert_eq(kstat_parse_v1("-1\n", "100000\n", NULL, "1024\n", v1_stat_old, &k), 0);
	cr_assert_eq(k.quota_us, -1);
	cr_assert_eq(k.burst_us, 0);
	cr_assert_eq(k.shares, 1024);
	cr_assert_eq(k.weight, 100);
	cr_assert_not(k.has_bursts);
	cr_assert_eq(k.nr_bursts, 0);
	cr_assert_eq(k.burst_ns, 0);
	cr_assert_eq(k.nr_throttled, 41, "the other counters still read");
	/* No cpu.shares file: weight unknown, not an error. */
	cr_assert_eq(kstat_parse_v1("-1\n", "100000\n", "0\n", NULL, v1_stat_bursts, &k), 0);
	cr_assert_eq(k.shares, 0);
	cr_assert_eq(k.weight, 0);
	cr_assert(k.has_bursts);
	cr_assert_eq(k.nr_bursts, 7);
	/* The kernel's conversion at its bounds: clamped to v2's 1..10000, rounded to nearest. */
	cr_assert_eq(kstat_parse_v1("-1\n", "100000\n", NULL, "2\n", v1_stat_old, &k), 0);
	cr_assert_eq(k.weight, 1, "MIN_SHARES shows as weight 1");
	cr_assert_eq(kstat_parse_v1("-1\n", "100000\n", NULL, "262144\n", v1_stat_old, &k), 0);
	cr_assert_eq(k.weight, 10000, "MAX_SHARES clamped");
	cr_assert_eq(kstat_parse_v1("-1\n", "100000\n", NULL, "100\n", v1_stat_old, &k), 0);
	cr_assert_eq(k.weight, 10, "9.77 rounds to 10");
	cr_assert_eq(kstat_parse_v1("-1\n", "100000\n", NULL, "2048\n", v1_stat_old, &k), 0);
	cr_assert_eq(k.weight, 200);
	cr_assert_neq(kstat_parse_v1("-1\n", "100000\n", NULL, "abc\n", v1_stat_old, &k), 0);
	cr_assert_neq(kstat_parse_v1("-1\n", "100000\n", NULL, "-5\n", v1_stat_old, &k), 0);
}

Test(kstat, v2_weight_and_bursts)
{
	struct kstat k;

	cr_assert_eq(kstat_parse_v2("50000 100000\n", "20000\n", "50\n", v2_stat_bursts, &k), 0);
	cr_assert_eq(k.quota_us, 50000);
	cr_assert_eq(k.burst_us, 20000);
	cr_assert_eq(k.weight, 50);
	cr_assert_eq(k.shares, 512, "DIV_ROUND_CLOSEST_ULL(50 * 1024, 100)");
	cr_assert_eq(k.nr_periods, 10);
	cr_assert_eq(k.nr_throttled, 3);
	cr_assert_eq(k.throttled_ns, 2500000);
	cr_assert_eq(k.usage_ns, 1000000);
	cr_assert(k.has_bursts);
	cr_assert_eq(k.nr_bursts, 2);
	cr_assert_eq(k.burst_ns, 1500000, "v2 burst_usec in ns");
	/* Rounded as sched_weight_from_cgroup(): 1 -> 10.24 -> 10, 10000 -> 102400, 33 -> 337.92 -> 338. */
	cr_assert_eq(kstat_parse_v2("max 100000\n", NULL, "1\n", v2_stat_old, &k), 0);
	cr_assert_eq(k.shares, 10);
	cr_assert_eq(kstat_parse_v2("max 100000\n", NULL, "10000\n", v2_stat_old, &k), 0);
	cr_assert_eq(k.shares, 102400);
	cr_assert_eq(kstat_parse_v2("max 100000\n", NULL, "33\n", v2_stat_old, &k), 0);
	cr_assert_eq(k.shares, 338);
	cr_assert_neq(kstat_parse_v2("max 100000\n", NULL, "10001\n", v2_stat_old, &k), 0);
	cr_assert_neq(kstat_parse_v2("max 100000\n", NULL, "x\n", v2_stat_old, &k), 0);
}

Test(kstat, v2_without_bursts_or_weight)
{
	struct kstat k;

	/* The root: no cpu.weight (and no cpu.max there either, but the parser does not care). */
	cr_assert_eq(kstat_parse_v2("max 100000\n", "0\n", NULL, v2_stat_bursts, &k), 0);
	cr_assert(k.ok);
	cr_assert_eq(k.quota_us, -1);
	cr_assert_eq(k.weight, 0, "missing file: unknown");
	cr_assert_eq(k.shares, 0);
	cr_assert(k.has_bursts);
	/* Before 5.14: no burst lines, no cpu.max.burst. */
	cr_assert_eq(kstat_parse_v2("max 100000\n", NULL, "100\n", v2_stat_old, &k), 0);
	cr_assert_eq(k.weight, 100);
	cr_assert_eq(k.shares, 1024);
	cr_assert_not(k.has_bursts);
	cr_assert_eq(k.nr_bursts, 0);
	cr_assert_eq(k.burst_ns, 0);
	cr_assert_eq(k.throttled_ns, 2500000);
	/* 6.1 shows 0 for the tiniest loads (an idle group): unknown, not an error. */
	cr_assert_eq(kstat_parse_v2("max 100000\n", NULL, "0\n", v2_stat_old, &k), 0);
	cr_assert_eq(k.weight, 0);
	cr_assert_eq(k.shares, 0);
	/* A key that only starts like nr_bursts is not it. */
	cr_assert_eq(kstat_parse_v2("max 100000\n", NULL, NULL, "nr_bursts_x 4\n", &k), 0);
	cr_assert_not(k.has_bursts);
}

Test(kstat, weight_of_shares)
{
	cr_assert_eq(kstat_weight_of(0), 0, "unknown stays unknown");
	cr_assert_eq(kstat_weight_of(1024), 100);
	cr_assert_eq(kstat_weight_of(3), 1, "an idle group's WEIGHT_IDLEPRIO");
	cr_assert_eq(kstat_weight_of(1ULL << 40), 10000);
	for (uint64_t w = 1; w <= 10000; w += 7) {
		struct kstat k;
		char t[16];
		snprintf(t, sizeof(t), "%lu\n", (unsigned long)w);
		cr_assert_eq(kstat_parse_v2("max 100000\n", NULL, t, v2_stat_old, &k), 0);
		cr_assert_eq(kstat_weight_of(k.shares), w, "round trip of %lu", (unsigned long)w);
	}
}
