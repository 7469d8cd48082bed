// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

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
