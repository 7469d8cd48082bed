// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * enforce's journal: the text round-trips any cgroup name and value, a
 * malformed one is refused whole with its line, saving replaces atomically,
 * and a restore plan runs newest first and skips cgroups gone or replaced
 * (against a fake cgroup tree: a temporary directory, no kernel).
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
#include "limits/journal.h"

static const char head[] = "cgsched-journal 1\npid 42\nboot 326fc945-491d-48bf-aef6-db5614fac009\n"
			   "hierarchy 1 /sys/fs/cgroup/cpu\n";

static int parse(const char *body, struct journal *j, char *err, size_t errlen)
{
	char text[4096];

	snprintf(text, sizeof(text), "%s%s", head, body);
	return journal_parse(text, strlen(text), "J", j, err, errlen);
}

Test(journal, round_trip)
{
	struct journal j = { .pid = 7, .boot = "abc-1", .version = 2, .root = "/sys/fs/cgroup" }, k;
	char err[512];
	size_t len;

	snprintf(j.path, sizeof(j.path), "J");
	/* A name with a space, a percent sign, a newline and UTF-8; cpu.max's value has a space. */
	cr_assert_eq(journal_add(&j, 11, "/a b/100%\n/caf\xc3\xa9", "cpu.max", "max 100000"), 0);
	cr_assert_eq(journal_add(&j, 12, "/x", "cpu.weight", "100"), 0);
	cr_assert_eq(journal_add(&j, 12, "/x", "cpu.weight", "200"), -EEXIST, "one entry per file");
	char *text = journal_format(&j, &len);
	cr_assert_not_null(text);
	cr_assert_not_null(strstr(text, "set 11 /a%20b/100%25%0A/caf\xc3\xa9 cpu.max max%20100000\n"), "%s", text);
	cr_assert_eq(journal_parse(text, len, "J", &k, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(k.n, 2);
	cr_assert_eq(k.pid, 7);
	cr_assert_eq(k.version, 2);
	cr_assert_str_eq(k.boot, "abc-1");
	cr_assert_str_eq(k.root, "/sys/fs/cgroup");
	cr_assert_str_eq(k.e[0].rel, "/a b/100%\n/caf\xc3\xa9");
	cr_assert_str_eq(k.e[0].orig, "max 100000");
	cr_assert_eq(k.e[0].id, 11);
	cr_assert_str_eq(k.e[1].file, "cpu.weight");
	/* Dropping keeps the order (the undo order). */
	cr_assert(journal_drop(&k, "/a b/100%\n/caf\xc3\xa9", "cpu.max"));
	cr_assert(!journal_drop(&k, "/a b/100%\n/caf\xc3\xa9", "cpu.max"));
	cr_assert_eq(k.n, 1);
	cr_assert_str_eq(k.e[0].rel, "/x");
	free(text);
	journal_free(&j);
	journal_free(&k);
}

Test(journal, malformed)
{
	static const struct {
		const char *text;
		int line;
	} bad[] = {
		{ "set 1 /a cpu.shares 1024\n", 6 },                 /* no end */
		{ "set 1 /a cpu.shares 1024\nend 2\n", 6 },          /* end miscounts */
		{ "end 0\nset 1 /a cpu.shares 1024\n", 6 },          /* after end */
		{ "set 1 /a cgroup.procs 1\nend 1\n", 5 },           /* not a limit file */
		{ "set 1 /a cpu.shares -1\nend 1\n", 5 },            /* not its value */
		{ "set 1 /a cpu.max 1%20x\nend 1\n", 5 },
		{ "set 1 / cpu.shares 1024\nend 1\n", 5 },           /* the root */
		{ "set 1 /a/../b cpu.shares 1024\nend 1\n", 5 },     /* not normalised */
		{ "set 1 a cpu.shares 1024\nend 1\n", 5 },
		{ "set 1 /a%00b cpu.shares 1024\nend 1\n", 5 },      /* NUL in a name */
		{ "set 1 /a%2 cpu.shares 1024\nend 1\n", 5 },        /* cut escape */
		{ "set 0 /a cpu.shares 1024\nend 1\n", 5 },          /* no id */
		{ "set 1 /a cpu.shares 1024\nset 1 /a cpu.shares 2\nend 2\n", 6 }, /* twice */
		{ "set 1 /a  cpu.shares 1024\nend 1\n", 5 },         /* two spaces */
		{ "set 1 /a cpu.shares 1024\nend 1", 6 },            /* cut short */
		{ "sit 1 /a cpu.shares 1024\nend 1\n", 5 },
	};
	struct journal j;
	char err[512], want[16];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(parse(bad[i].text, &j, err, sizeof(err)), -1, "case %zu accepted", i);
		snprintf(want, sizeof(want), "J:%d: ", bad[i].line);
		cr_assert(!strncmp(err, want, strlen(want)), "case %zu: %s (want line %d)", i, err, bad[i].line);
		cr_assert_eq(j.n, 0, "nothing half-taken");
	}
	cr_assert_eq(journal_parse("cgsched-journal 2\n", 18, "J", &j, err, sizeof(err)), -1, "a later format");
	cr_assert_eq(journal_parse("", 0, "J", &j, err, sizeof(err)), -1);
	cr_assert_eq(journal_parse("cgsched-journal 1\npid x\n", 24, "J", &j, err, sizeof(err)), -1);
	cr_assert(!strncmp(err, "J:2: ", 5), "%s", err);
	cr_assert_eq(parse("end 0\n", &j, err, sizeof(err)), 0, "an empty journal is a journal: %s", err);
}

Test(journal, values)
{
	cr_assert(journal_value_ok("cpu.cfs_quota_us", "-1"));
	cr_assert(journal_value_ok("cpu.cfs_quota_us", "20000"));
	cr_assert(!journal_value_ok("cpu.cfs_quota_us", "-2"));
	cr_assert(journal_value_ok("cpu.max", "max 100000"));
	cr_assert(journal_value_ok("cpu.max", "20000 100000"));
	cr_assert(!journal_value_ok("cpu.max", "max"));
	cr_assert(!journal_value_ok("cpu.max", "20000  100000"));
	cr_assert(journal_value_ok("cpu.shares", "1024"));
	cr_assert(!journal_value_ok("cpu.shares", ""));
	cr_assert(!journal_value_ok("cgroup.procs", "1"));
	cr_assert(!journal_value_ok("cpu.weight", "1; rm"));
}

static char dir[] = "/tmp/cgs-unit-XXXXXX";
static struct cgfs fs;

static void setup(void)
{
	fake_cgfs_open(&fs, dir);
}

static void teardown(void)
{
	fake_cgfs_close(&fs, dir);
}

static void put(const char *rel, const char *val)
{
	fake_cgfs_put(dir, rel, val);
}

static int nskipped, nreplaced;
static void skipped(void *ctx, const struct journal_ent *e, bool replaced)
{
	nskipped++;
	nreplaced += replaced;
}

/* Saved, loaded, planned: newest first, files as they were left out, gone and replaced cgroups skipped. */
Test(journal, save_load_plan, .init = setup, .fini = teardown)
{
	struct journal j, k;
	struct plan p;
	char path[PATH_MAX], err[512];
	uint64_t a, b;

	mkdir(strcat(strcpy(path, dir), "/a"), 0755);
	mkdir(strcat(strcpy(path, dir), "/b"), 0755);
	put("a/cpu.cfs_quota_us", "20000\n");
	put("a/cpu.shares", "3072\n");
	put("a/cpu.cfs_period_us", "100000\n");
	put("b/cpu.shares", "512\n");
	cr_assert_eq(cgfs_id(&fs, "/a", &a), 0);
	cr_assert_eq(cgfs_id(&fs, "/b", &b), 0);
	snprintf(path, sizeof(path), "%s/enforce.journal", dir);
	journal_init(&j, path, &fs);
	journal_add(&j, a, "/a", "cpu.cfs_quota_us", "-1");
	journal_add(&j, a, "/a", "cpu.cfs_period_us", "100000"); /* as it was: no write */
	journal_add(&j, a, "/a", "cpu.shares", "1024");
	journal_add(&j, b + 1000, "/b", "cpu.shares", "1024"); /* another cgroup now */
	journal_add(&j, a, "/gone", "cpu.shares", "1024");
	cr_assert_eq(journal_save(&j), 0);
	cr_assert_eq(journal_save(&j), 0, "replaced, not appended");
	cr_assert_eq(journal_load(path, &k, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(k.n, 5);
	cr_assert(journal_this_boot(&k));
	cr_assert_eq(journal_for(&k, &fs, err, sizeof(err)), 0);
	cr_assert_eq(journal_plan(&k, &fs, &p, skipped, NULL), 0);
	cr_assert_eq(nskipped, 2);
	cr_assert_eq(nreplaced, 1);
	cr_assert_eq(p.n, 2);
	cr_assert_str_eq(p.c[0].file, "cpu.shares", "newest first");
	cr_assert_str_eq(p.c[0].old, "3072");
	cr_assert_str_eq(p.c[0].new, "1024");
	cr_assert_str_eq(p.c[1].file, "cpu.cfs_quota_us");
	plan_free(&p);
	/* Another hierarchy: refused. */
	fs.version = 2;
	cr_assert_eq(journal_for(&k, &fs, err, sizeof(err)), -1);
	fs.version = 1;
	/* Another boot: not this one. */
	snprintf(k.boot, sizeof(k.boot), "00000000-0000-0000-0000-000000000000");
	cr_assert(!journal_this_boot(&k));
	/* The lock: a second taker is refused and told who holds it. */
	long holder;
	int fd = journal_lock(path, &holder), fd2;
	cr_assert_geq(fd, 0);
	/* flock locks belong to the open file: a second open in this process conflicts too. */
	cr_assert_eq(fd2 = journal_lock(path, &holder), -EBUSY);
	cr_assert_eq(holder, getpid());
	close(fd);
	cr_assert_geq(fd2 = journal_lock(path, &holder), 0);
	close(fd2);
	journal_free(&k);
	cr_assert_eq(journal_remove(path), 0);
	cr_assert_eq(journal_remove(path), 0, "none there is fine");
	cr_assert_eq(journal_load(path, &k, err, sizeof(err)), -ENOENT);
	journal_free(&j);
}

/* A path below the root of about 3,900 bytes, told apart by i. */
static void long_rel(char *rel, size_t len, size_t i)
{
	int n = snprintf(rel, len, "/%zu", i);

	while ((size_t)n + 201 < len && n < 3900)
		n += snprintf(rel + n, len - n, "/%0200d", 0);
}

/* What journal_save writes, journal_load reads back: a journal too big for it is refused, the old one kept. */
Test(journal, too_big_is_not_written, .init = setup, .fini = teardown)
{
	struct journal j, k;
	char path[PATH_MAX], rel[PATH_MAX], err[512];
	size_t len, n = 0;

	snprintf(path, sizeof(path), "%s/enforce.journal", dir);
	journal_init(&j, path, &fs);
	cr_assert_eq(journal_add(&j, 1, "/a", "cpu.shares", "1024"), 0);
	cr_assert_eq(journal_save(&j), 0);
	/* Past the bound by a few entries ("set 1 REL cpu.shares 1024\n" each). */
	size_t total = 0;
	while (total < JOURNAL_MAX_BYTES + 4 * 4096) {
		long_rel(rel, sizeof(rel), n++);
		cr_assert_eq(journal_add(&j, 1, rel, "cpu.shares", "1024"), 0);
		total += strlen(rel) + 23;
	}
	char *text = journal_format(&j, &len);
	cr_assert_gt(len, JOURNAL_MAX_BYTES);
	free(text);
	cr_assert_eq(journal_save(&j), -EFBIG);
	cr_assert_eq(journal_load(path, &k, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(k.n, 1, "the journal before it is kept");
	journal_free(&k);
	/* Back under it: written, and read back whole. */
	while (total > JOURNAL_MAX_BYTES - 4096) {
		long_rel(rel, sizeof(rel), --n);
		cr_assert(journal_drop(&j, rel, "cpu.shares"));
		total -= strlen(rel) + 23;
	}
	cr_assert_eq(journal_save(&j), 0);
	cr_assert_eq(journal_load(path, &k, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(k.n, j.n);
	journal_free(&k);
	journal_free(&j);
}

/*
 * Entries are found by hash: adding, parsing (each line checked against
 * those before it) and dropping 200,000 of them takes well under a second.
 * Linear lookups took n^2/2 comparisons, minutes.
 */
Test(journal, many_entries_by_hash, .timeout = 20)
{
	struct journal j = { .pid = 7, .boot = "abc-1", .version = 1, .root = "/sys/fs/cgroup/cpu" }, k;
	char rel[32], err[512];
	size_t len, n = 200000;

	snprintf(j.path, sizeof(j.path), "J");
	for (size_t i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "/batch/job-%06zu", i / 2);
		cr_assert_eq(journal_add(&j, 1 + i / 2, rel, i % 2 ? "cpu.cfs_quota_us" : "cpu.shares", "1024"), 0);
	}
	cr_assert_eq(journal_add(&j, 1, "/batch/job-000000", "cpu.shares", "1"), -EEXIST);
	char *text = journal_format(&j, &len);
	cr_assert_not_null(text);
	cr_assert_eq(journal_parse(text, len, "J", &k, err, sizeof(err)), 0, "%s", err);
	free(text);
	cr_assert_eq(k.n, n);
	for (size_t i = 0; i < n; i += 1000) {
		snprintf(rel, sizeof(rel), "/batch/job-%06zu", i / 2);
		cr_assert(journal_drop(&k, rel, "cpu.shares"), "%s", rel);
	}
	cr_assert_eq(k.n, n - n / 1000);
	/* What is left is found where it now is. */
	cr_assert_eq(journal_find(&k, "/batch/job-099999", "cpu.cfs_quota_us"), &k.e[k.n - 1]);
	cr_assert_eq(journal_find(&k, "/batch/job-000000", "cpu.cfs_quota_us"), &k.e[0]);
	cr_assert_null(journal_find(&k, "/batch/job-000000", "cpu.shares"));
	journal_free(&j);
	journal_free(&k);
}
