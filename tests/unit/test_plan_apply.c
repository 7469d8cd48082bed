// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writing limits against a fake cgroup tree (a temporary directory, no
 * kernel): what a rollback may touch, and paths too long to build.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/cgroupfs.h"
#include "fake_cgfs.h"
#include "limits/limits_file.h"

static char dir[] = "/tmp/cgs-unit-XXXXXX";
static struct cgfs fs;

static void put(const char *rel, const char *val)
{
	fake_cgfs_put(dir, rel, val);
}

static char *get(const char *rel)
{
	static char buf[64];
	memset(buf, 0, sizeof(buf));
	cr_assert_geq(cgfs_read(&fs, rel, NULL, buf, sizeof(buf)), 0, "%s", rel);
	return buf;
}

static void setup(void)
{
	fake_cgfs_open(&fs, dir);
}

static void teardown(void)
{
	fake_cgfs_close(&fs, dir);
}

/*
 * A cgroup the plan meant to make appeared meanwhile (someone else's):
 * the failing write after it rolls back the values, but the cgroup is not
 * this run's to remove, and what it holds stays.
 */
Test(plan_apply, rollback_leaves_what_it_did_not_make, .init = setup, .fini = teardown)
{
	char p[PATH_MAX];
	struct change c[3] = {
		{ .rel = "/a", .file = "cpu.shares", .old = "1024", .new = "2048" },
		{ .rel = "/theirs", .file = "cpu.shares", .new = "512", .mkdir = true },
		{ .rel = "/b", .file = "cpu.shares", .old = "1024", .new = "300" }, /* /b is missing: fails */
	};
	struct plan pl = { .c = c, .n = 3, .cap = 3 };
	const struct change *bad = NULL;

	snprintf(p, sizeof(p), "%s/a", dir);
	mkdir(p, 0755);
	put("a/cpu.shares", "1024");
	snprintf(p, sizeof(p), "%s/theirs", dir);
	mkdir(p, 0755);
	put("theirs/cpu.shares", "1024");
	put("theirs/tasks-of-someone", "42");

	cr_assert_eq(plan_apply(&fs, &pl, NULL, &bad), -ENOENT);
	cr_assert_eq(bad, &c[2]);
	cr_assert_str_eq(get("a/cpu.shares"), "1024", "restored");
	cr_assert_str_eq(get("theirs/cpu.shares"), "1024", "restored to what it was, not removed");
	cr_assert_str_eq(get("theirs/tasks-of-someone"), "42");
	cr_assert_not(c[1].made);
	cr_assert_eq(pl.unrestored, 0);
}

/* A cgroup this run made is removed on rollback (it is empty: nothing is killed). */
Test(plan_apply, rollback_removes_its_own, .init = setup, .fini = teardown)
{
	char p[PATH_MAX];
	struct change c[2] = {
		{ .rel = "/a", .file = "cpu.shares", .old = "1024", .new = "2048" },
		/* made by plan_apply; a plain directory has no cpu.shares: the write fails */
		{ .rel = "/mine", .file = "cpu.shares", .new = "512", .mkdir = true },
	};
	struct plan pl = { .c = c, .n = 2, .cap = 2 };
	const struct change *bad = NULL;
	struct stat st;

	snprintf(p, sizeof(p), "%s/a", dir);
	mkdir(p, 0755);
	put("a/cpu.shares", "1024");
	cr_assert_lt(plan_apply(&fs, &pl, NULL, &bad), 0);
	cr_assert_eq(bad, &c[1]);
	cr_assert(c[1].made);
	snprintf(p, sizeof(p), "%s/mine", dir);
	cr_assert_neq(stat(p, &st), 0, "the cgroup it made is gone");
	cr_assert_str_eq(get("a/cpu.shares"), "1024");
	cr_assert_eq(pl.unrestored, 0);
}

/* A stop asked for between writes: everything written is undone, -EINTR. */
Test(plan_apply, stop_rolls_back, .init = setup, .fini = teardown)
{
	char p[PATH_MAX];
	volatile int stop = 1;
	struct change c[1] = { { .rel = "/a", .file = "cpu.shares", .old = "1024", .new = "2048" } };
	struct plan pl = { .c = c, .n = 1, .cap = 1 };
	const struct change *bad = &c[0];

	snprintf(p, sizeof(p), "%s/a", dir);
	mkdir(p, 0755);
	put("a/cpu.shares", "1024");
	cr_assert_eq(plan_apply(&fs, &pl, &stop, &bad), -EINTR);
	cr_assert_null(bad);
	cr_assert_str_eq(get("a/cpu.shares"), "1024", "nothing written");
}

/*
 * A path that does not fit is an error, never a shorter path: cut short,
 * ".../cpu.max.burst" is ".../cpu.max".
 */
Test(cgroupfs, long_paths_fail_whole, .init = setup, .fini = teardown)
{
	char rel[PATH_MAX];
	/* 4,087 characters after the leading '/': "REL/cpu.max" fits exactly, "REL/cpu.max.burst" does not. */
	size_t n = PATH_MAX - 1 - strlen("/cpu.max");

	rel[0] = '/';
	for (size_t i = 1; i <= n; i++)
		rel[i] = i % 200 ? 'x' : '/'; /* components the kernel takes (NAME_MAX) */
	rel[n + 1] = 0;
	cr_assert_eq(cgfs_write(&fs, rel, "cpu.max.burst", "5000"), -ENAMETOOLONG);
	char buf[16];
	cr_assert_eq(cgfs_read(&fs, rel, "cpu.max.burst", buf, sizeof(buf)), -ENAMETOOLONG);
	/* The shorter name still fits: it is only refused by the missing directory. */
	cr_assert_eq(cgfs_write(&fs, rel, "cpu.max", "5000"), -ENOENT);
	rel[PATH_MAX - 1] = 0;
	memset(rel + 1, 'x', PATH_MAX - 2);
	cr_assert_eq(cgfs_mkdir(&fs, rel), -ENAMETOOLONG);
	cr_assert_eq(cgfs_rmdir(&fs, rel), -ENAMETOOLONG);
}

/* limits_file_parse against the fake tree; 0, or -1 with the line in err. */
static int load(const char *text, struct limits_file *lf, char *err, size_t len)
{
	return limits_file_parse(text, strlen(text), "l.ini", &fs, lf, err, len);
}

/* A section naming a file is not a cgroup; create = yes cannot help it. */
Test(limits_file, a_file_is_not_a_cgroup, .init = setup, .fini = teardown)
{
	struct limits_file lf;
	char err[512];

	put("cgroup.procs", "");
	cr_assert_eq(load("[/cgroup.procs]\nweight = 50\n", &lf, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "l.ini:1: [/cgroup.procs]: not a cgroup: a file, or below one");
	cr_assert_eq(load("[/cgroup.procs/x]\ncreate = yes\n", &lf, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "l.ini:1: [/cgroup.procs/x]: not a cgroup: a file, or below one");
}

/* mkdir makes one level: the parent must exist, or be made by a section above. */
Test(limits_file, create_needs_its_parent, .init = setup, .fini = teardown)
{
	struct limits_file lf;
	char err[512];

	cr_assert_eq(load("[/a/b]\ncreate = yes\nweight = 50\n", &lf, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "l.ini:2: [/a/b]: cannot create it: its parent /a is not a cgroup; "
			      "create the parent first, in a section above this one");
	cr_assert_eq(load("[/a/b]\ncreate = yes\n[/a]\ncreate = yes\n", &lf, err, sizeof(err)), -1, "below is too late");
	cr_assert_eq(load("[/a]\ncreate = yes\n[/a/b]\ncreate = yes\nweight = 50\n", &lf, err, sizeof(err)), 0, "%s", err);
	limits_file_free(&lf);
}

/* create = yes with nothing to set still makes the cgroup (it used to make nothing). */
Test(limits_file, create_alone_makes_it, .init = setup, .fini = teardown)
{
	struct limits_file lf;
	struct plan p;
	const struct change *bad = NULL;
	char err[512], path[PATH_MAX];
	struct stat st;

	cr_assert_eq(load("[/new]\ncreate = yes\n", &lf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(plan_build(&lf, &fs, NULL, NULL, &p), 0);
	cr_assert_eq(p.n, 1);
	cr_assert(p.c[0].mkdir);
	cr_assert_str_eq(p.c[0].file, "");
	cr_assert_eq(plan_apply(&fs, &p, NULL, &bad), 0);
	snprintf(path, sizeof(path), "%s/new", dir);
	cr_assert_eq(stat(path, &st), 0, "made");
	cr_assert(S_ISDIR(st.st_mode));
	plan_free(&p);
	limits_file_free(&lf);
}

/* A soft cap is a quota too: one below the burst is refused as the file is read. */
Test(limits_file, soft_cap_below_the_burst, .init = setup, .fini = teardown)
{
	struct limits_file lf;
	char err[512], p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/s", dir);
	mkdir(p, 0755);
	cr_assert_eq(load("[/s]\nmax = 50%\nsoft_max = 10%\nburst = 20ms\n", &lf, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "l.ini:4: burst larger than the soft cap's quota (10000 us) in [/s]: "
			      "lower the burst or raise soft_max");
	cr_assert_eq(load("[/s]\nsoft_max = 10%\nburst = 20ms\n", &lf, err, sizeof(err)), -1, "a soft cap alone too");
	cr_assert_eq(load("[/s]\nmax = 50%\nsoft_max = 20%\nburst = 20ms\n", &lf, err, sizeof(err)), 0, "%s", err);
	limits_file_free(&lf);
}

/* The index of rel's file in the plan (p->n when absent). */
static size_t at(const struct plan *p, const char *rel, const char *file)
{
	size_t i;

	for (i = 0; i < p->n && (strcmp(p->c[i].rel, rel) || strcmp(p->c[i].file, file)); i++)
		;
	return i;
}

/*
 * The kernel refuses a quota below the burst in force: lowering both writes
 * the burst first; raising them writes the quota first.
 */
Test(plan_apply, burst_first_when_the_quota_goes_below_it, .init = setup, .fini = teardown)
{
	struct limits_file lf;
	struct plan p;
	char err[512], path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/w", dir);
	mkdir(path, 0755);
	put("w/cpu.cfs_period_us", "100000\n");
	put("w/cpu.cfs_quota_us", "50000\n");
	put("w/cpu.cfs_burst_us", "20000\n");
	cr_assert_eq(load("[/w]\nmax = 10%\nburst = 5ms\n", &lf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(plan_build(&lf, &fs, NULL, NULL, &p), 0);
	cr_assert_eq(p.n, 2);
	cr_assert_lt(at(&p, "/w", "cpu.cfs_burst_us"), at(&p, "/w", "cpu.cfs_quota_us"), "the burst first");
	plan_free(&p);
	limits_file_free(&lf);
	cr_assert_eq(load("[/w]\nmax = 80%\nburst = 60ms\n", &lf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(plan_build(&lf, &fs, NULL, NULL, &p), 0);
	cr_assert_lt(at(&p, "/w", "cpu.cfs_quota_us"), at(&p, "/w", "cpu.cfs_burst_us"), "the quota first");
	plan_free(&p);
	limits_file_free(&lf);
	/* "-1" is no quota: nothing is below it. */
	cr_assert(!burst_goes_first("-1", "20000"));
	cr_assert(!burst_goes_first("max 100000", "20000"));
	cr_assert(burst_goes_first("10000 100000", "20000"));
	cr_assert(!burst_goes_first("20000 100000", "20000"));
}

/* A limits file is applied as root: one that others may write is refused, as a journal is. */
Test(limits_file, writable_by_others_refused, .init = setup, .fini = teardown)
{
	struct limits_file lf;
	char err[PATH_MAX + 256], path[PATH_MAX], want[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/a", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/l.ini", dir);
	put("l.ini", "[/a]\nweight = 50\n");
	static const mode_t modes[] = { 0620, 0602, 0666 };
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		cr_assert_eq(chmod(path, modes[i]), 0);
		cr_assert_eq(limits_file_load(path, &fs, &lf, err, sizeof(err)), -1, "mode %o", modes[i]);
		snprintf(want, sizeof(want), "%s: writable by others: refused", path);
		cr_assert(!strncmp(err, want, strlen(want)), "%s", err);
	}
	cr_assert_eq(chmod(path, 0644), 0);
	cr_assert_eq(limits_file_load(path, &fs, &lf, err, sizeof(err)), 0, "%s", err);
	limits_file_free(&lf);
}

static int by_rel(const void *a, const void *b)
{
	return strcmp(((const struct change *)a)->rel, ((const struct change *)b)->rel);
}

/* The cgroups a limits file's plan writes to, in sorted order, one "REL " after another. */
static const char *planned(const char *text)
{
	static char out[512];
	struct limits_file lf;
	struct plan p;
	char err[512];

	out[0] = 0;
	cr_assert_eq(load(text, &lf, err, sizeof(err)), 0, "%s: %s", text, err);
	cr_assert_eq(plan_build(&lf, &fs, NULL, NULL, &p), 0);
	qsort(p.c, p.n, sizeof(*p.c), by_rel);
	for (size_t i = 0; i < p.n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%.64s ", p.c[i].rel);
	plan_free(&p);
	limits_file_free(&lf);
	return out;
}

/* A section name ends at the first ']' outside a set of its glob. */
Test(limits_file, a_set_in_a_section_name, .init = setup, .fini = teardown)
{
	static const char *const cgs[] = { "x-a", "x-b", "x-c", "a[1]", "a1", "a[b" };
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof(cgs) / sizeof(cgs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, cgs[i]);
		cr_assert_eq(mkdir(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/cpu.shares", cgs[i]);
		put(p, "1024\n");
	}
	cr_assert_str_eq(planned("[x-[ab]]\nweight = 50\n"), "/x-a /x-b ");
	cr_assert_str_eq(planned("[x-[!a]]\nweight = 50\n"), "/x-b /x-c ");
	cr_assert_str_eq(planned("[x-[[:alpha:]]]\nweight = 50\n"), "/x-a /x-b /x-c ");
	cr_assert_str_eq(planned("[x-[ab]] ; a comment [c]\nweight = 50\n"), "/x-a /x-b ");
	/* '[' and ']' in a name, as sets of one. */
	cr_assert_str_eq(planned("[a[[]1[]]]\nweight = 50\n"), "/a[1] ");
	/* A '[' that nothing closes is a plain character. */
	cr_assert_str_eq(planned("[a[b]\nweight = 50\n"), "/a[b ");
	/* Over inih's 49 bytes. */
	cr_assert_str_eq(planned("[/./././././././././././././././././././././././x-[ab]]\nweight = 50\n"), "/x-a /x-b ");
}
