// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * enforce's engine against a fake cgroup tree (a temporary directory, no
 * kernel), rule by rule of docs/limits.md: the first pass, a value someone
 * else changed, soft caps put on and lifted (and who counts as contention),
 * a reload, a cgroup made again under its name, the restore at exit, a
 * journal that cannot be written, and a journal left by a crash.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/journal_restore.h"
#include "fake_cgfs.h"
#include "kernel/cgroupfs.h"
#include "limits/enforcer.h"

static char dir[] = "/tmp/cgs-unit-XXXXXX";
static char jdir[] = "/tmp/cgs-unit-j-XXXXXX";
static char jpath[PATH_MAX], lpath[PATH_MAX];
static struct cgfs fs;
static struct enforcer e;

/* The log, one line after another. */
static char logbuf[16384];

static void logged(void *ctx, const char *line)
{
	(void)ctx;
	size_t n = strlen(logbuf);
	snprintf(logbuf + n, sizeof(logbuf) - n, "%s\n", line);
}

static void say(void *ctx, bool item, const char *line)
{
	(void)item;
	logged(ctx, line);
}

static void cg(const char *rel, const char *quota, const char *shares)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	cr_assert_eq(mkdir(p, 0755), 0, "%s", p);
	snprintf(p, sizeof(p), "%s/cpu.cfs_quota_us", rel);
	fake_cgfs_put(dir, p, quota);
	snprintf(p, sizeof(p), "%s/cpu.cfs_period_us", rel);
	fake_cgfs_put(dir, p, "100000");
	snprintf(p, sizeof(p), "%s/cpu.shares", rel);
	fake_cgfs_put(dir, p, shares);
}

/* rel removed and made again: made beside it first, so that it cannot get the old inode number (its id). */
static void remake_cg(const char *rel, const char *quota, const char *shares)
{
	char cmd[3 * PATH_MAX];

	cg("remade", quota, shares);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/%s && mv %s/remade %s/%s", dir, rel, dir, dir, rel);
	cr_assert_eq(system(cmd), 0);
}

static const char *get(const char *rel, const char *file)
{
	static char buf[64];

	memset(buf, 0, sizeof(buf));
	cr_assert_geq(cgfs_read(&fs, rel, file, buf, sizeof(buf)), 0, "%s %s", rel, file);
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static void set(const char *rel, const char *file, const char *val)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", rel + 1, file);
	fake_cgfs_put(dir, p, val);
}

static void write_limits(const char *text)
{
	FILE *f = fopen(lpath, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static const char limits[] = "[web]\nmax = 20%\nweight = 300\n\n[soft]\nsoft_max = 50%\n";

/* The engine on the fake tree with the limits above, as enforce starts it. */
static void start(void)
{
	struct limits_file lf;
	char err[PATH_MAX + 256];

	write_limits(limits);
	cr_assert_eq(limits_file_load(lpath, &fs, &lf, err, sizeof(err)), 0, "%s", err);
	enforcer_init(&e, &fs, &lf, jpath);
	e.log = logged;
	snprintf(e.self, sizeof(e.self), "/cgsched");
}

static void setup(void)
{
	fake_cgfs_open(&fs, dir);
	cr_assert_not_null(mkdtemp(jdir));
	snprintf(jpath, sizeof(jpath), "%s/enforce.journal", jdir);
	snprintf(lpath, sizeof(lpath), "%s/limits.ini", jdir);
	logbuf[0] = 0;
	cg("web", "-1", "1024");
	cg("soft", "-1", "1024");
	cg("rival", "-1", "1024");
	cg("rival/child", "-1", "1024");
	start();
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	enforcer_free(&e);
	fake_cgfs_close(&fs, dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", jdir);
	cr_assert_eq(system(cmd), 0);
	strcpy(jdir, "/tmp/cgs-unit-j-XXXXXX");
}

static bool journal_exists(void)
{
	return access(jpath, F_OK) == 0;
}

/* The journal on disk holds rel's file with orig. */
static bool journalled(const char *rel, const char *file, const char *orig)
{
	struct journal j;
	char err[512];
	bool yes;

	if (journal_load(jpath, &j, err, sizeof(err)))
		return false;
	const struct journal_ent *ent = journal_find(&j, rel, file);
	yes = ent && !strcmp(ent->orig, orig);
	journal_free(&j);
	return yes;
}

static void contention(const char *path, uint64_t waits, uint64_t p99_ns)
{
	struct enf_load row = { path, waits, p99_ns };

	enforcer_judge(&e, &row, 1);
}

Test(enforcer, first_pass_journals_then_applies, .init = setup, .fini = teardown)
{
	enforcer_pass(&e, true);
	cr_assert_str_eq(get("/web", "cpu.cfs_quota_us"), "20000");
	cr_assert_str_eq(get("/web", "cpu.shares"), "3072");
	cr_assert_not_null(strstr(logbuf, "/web cpu.shares: 1024 -> 3072 (in the limits file)"), "%s", logbuf);
	/* Each value found is on disk before the change that overwrote it. */
	cr_assert(journalled("/web", "cpu.cfs_quota_us", "-1"));
	cr_assert(journalled("/web", "cpu.shares", "1024"));
	/* A soft cap is off until there is contention: /soft is untouched, and not journalled. */
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "-1");
	cr_assert(!journalled("/soft", "cpu.cfs_quota_us", "-1"));
}

Test(enforcer, value_changed_by_others_is_put_back, .init = setup, .fini = teardown)
{
	enforcer_pass(&e, true);
	set("/web", "cpu.shares", "1000");
	logbuf[0] = 0;
	enforcer_pass(&e, false);
	cr_assert_str_eq(get("/web", "cpu.shares"), "3072");
	cr_assert_str_eq(logbuf, "/web cpu.shares: 1000 -> 3072 (someone else changed it: restored)\n");
	/* The original is still the one found at start, not the other writer's. */
	cr_assert(journalled("/web", "cpu.shares", "1024"));
	/* Nothing to do: nothing logged. */
	logbuf[0] = 0;
	enforcer_pass(&e, false);
	cr_assert_str_eq(logbuf, "");
}

Test(enforcer, soft_cap_on_then_lifted_after_two_quiet_intervals, .init = setup, .fini = teardown)
{
	enforcer_pass(&e, true);
	contention("/rival", 100, 8000000);
	enforcer_pass(&e, false);
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "50000");
	cr_assert_not_null(strstr(logbuf, "/soft cpu.cfs_quota_us: -1 -> 50000 (soft cap on: /rival run-queue p99 8.00ms > 2.00ms)"),
			   "%s", logbuf);
	cr_assert(journalled("/soft", "cpu.cfs_quota_us", "-1"));
	/* One quiet interval: still on. */
	enforcer_judge(&e, NULL, 0);
	enforcer_pass(&e, false);
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "50000");
	/* Contention again resets the count. */
	contention("/rival", 100, 8000000);
	enforcer_judge(&e, NULL, 0);
	enforcer_pass(&e, false);
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "50000");
	logbuf[0] = 0;
	enforcer_judge(&e, NULL, 0);
	enforcer_pass(&e, false);
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "-1");
	cr_assert_str_eq(logbuf, "/soft cpu.cfs_quota_us: 50000 -> -1 (soft cap lifted: no contention for 2 intervals)\n");
}

/* The group itself, its descendants, the root, cgsched's own cgroup and groups with few waits are no contenders. */
Test(enforcer, who_counts_as_contention, .init = setup, .fini = teardown)
{
	struct enf_load none[] = {
		{ "/soft", 100, 9000000 },        /* itself */
		{ "/soft/x", 100, 9000000 },      /* a descendant */
		{ "/", 100, 9000000 },            /* kernel threads, the unmanaged */
		{ "/cgsched", 100, 9000000 },     /* the observer */
		{ "/rival", 19, 9000000 },        /* under --min-waits (20) */
		{ "/rival/child", 100, 2000000 }, /* at the threshold, not above */
		{ NULL, 100, 9000000 },           /* a cgroup whose path is unknown */
	};

	enforcer_pass(&e, true);
	enforcer_judge(&e, none, sizeof(none) / sizeof(none[0]));
	enforcer_pass(&e, false);
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "-1", "%s", logbuf);
	/* "/softer" is not below "/soft": it contends. */
	contention("/softer", 20, 2000001);
	enforcer_pass(&e, false);
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "50000");
}

Test(enforcer, reload_puts_back_what_left_the_file, .init = setup, .fini = teardown)
{
	enforcer_pass(&e, true);
	write_limits("[soft]\nsoft_max = 50%\n");
	logbuf[0] = 0;
	cr_assert_eq(enforcer_reload(&e, lpath), 0);
	cr_assert_str_eq(get("/web", "cpu.cfs_quota_us"), "-1");
	cr_assert_str_eq(get("/web", "cpu.shares"), "1024");
	cr_assert_not_null(strstr(logbuf, "/web cpu.shares: 3072 -> 1024 (no longer in the limits file)"), "%s", logbuf);
	/* Nothing left to undo: the journal is gone. */
	cr_assert(!journal_exists());
	/* A bad file keeps the limits in force, and says where it is wrong. */
	write_limits("[web]\nmax = lots\n");
	logbuf[0] = 0;
	cr_assert_eq(enforcer_reload(&e, lpath), -1);
	cr_assert_not_null(strstr(logbuf, "reload failed, keeping the limits in force: "), "%s", logbuf);
	cr_assert_not_null(strstr(logbuf, ":2:"), "the line of the bad key: %s", logbuf);
	cr_assert_str_eq(get("/web", "cpu.shares"), "1024");
}

Test(enforcer, restore_at_exit_removes_the_journal, .init = setup, .fini = teardown)
{
	enforcer_pass(&e, true);
	contention("/rival", 100, 8000000);
	enforcer_pass(&e, false);
	cr_assert(journal_exists());
	cr_assert_eq(enforcer_stop(&e), 0);
	cr_assert_str_eq(get("/web", "cpu.cfs_quota_us"), "-1");
	cr_assert_str_eq(get("/web", "cpu.shares"), "1024");
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "-1");
	cr_assert_not_null(strstr(logbuf, "/web cpu.shares: 3072 -> 1024 (restored at exit)"), "%s", logbuf);
	cr_assert(!journal_exists());
}

/* Removed and made again (a systemctl restart): another cgroup, whose own value is the original. */
Test(enforcer, cgroup_made_again_keeps_its_own_original, .init = setup, .fini = teardown)
{
	enforcer_pass(&e, true);
	remake_cg("web", "-1", "500");
	logbuf[0] = 0;
	enforcer_pass(&e, false);
	cr_assert_str_eq(get("/web", "cpu.shares"), "3072");
	cr_assert_not_null(strstr(logbuf, "/web cpu.shares: 500 -> 3072 (made again under its name)"), "%s", logbuf);
	cr_assert(journalled("/web", "cpu.shares", "500"));
	cr_assert_eq(enforcer_stop(&e), 0);
	cr_assert_str_eq(get("/web", "cpu.shares"), "500");
}

/* No change is made that a crash could not undo. */
Test(enforcer, no_journal_no_change, .init = setup, .fini = teardown)
{
	struct limits_file lf;
	char err[PATH_MAX + 256];

	enforcer_free(&e);
	cr_assert_eq(limits_file_load(lpath, &fs, &lf, err, sizeof(err)), 0, "%s", err);
	enforcer_init(&e, &fs, &lf, "/nonexistent-dir-of-cgsched/enforce.journal");
	e.log = logged;
	enforcer_pass(&e, true);
	cr_assert_str_eq(get("/web", "cpu.shares"), "1024");
	cr_assert_str_eq(get("/web", "cpu.cfs_quota_us"), "-1");
	cr_assert_not_null(strstr(logbuf, "change"), "%s", logbuf);
	cr_assert_not_null(strstr(logbuf, "not made (none is made that a crash could not undo)"), "%s", logbuf);
}

/* Killed without its restore: the journal on disk puts the values found back, newest first. */
Test(enforcer, journal_left_by_a_crash_restores, .init = setup, .fini = teardown)
{
	bool found = false;

	enforcer_pass(&e, true);
	contention("/rival", 100, 8000000);
	enforcer_pass(&e, false);
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "50000");
	/* The crash: the memory goes, the cgroup files and the journal stay. */
	enforcer_free(&e);
	cr_assert(journal_exists());
	logbuf[0] = 0;
	cr_assert_eq(journal_restore(jpath, &fs, false, &found, say, NULL), 0, "%s", logbuf);
	cr_assert(found);
	cr_assert_str_eq(get("/web", "cpu.cfs_quota_us"), "-1");
	cr_assert_str_eq(get("/web", "cpu.shares"), "1024");
	cr_assert_str_eq(get("/soft", "cpu.cfs_quota_us"), "-1");
	cr_assert(!journal_exists());
	/* The next enforce starts from the true originals. */
	start();
	enforcer_pass(&e, true);
	cr_assert(journalled("/web", "cpu.shares", "1024"));
}

/* The line of the log that holds what, or NULL. */
static const char *logged_at(const char *what)
{
	return strstr(logbuf, what);
}

/* Lowering a quota and its burst together: the burst is written first, or the kernel refuses the quota. */
Test(enforcer, burst_first_when_the_quota_goes_below_it, .init = setup, .fini = teardown)
{
	struct limits_file lf;
	char err[PATH_MAX + 256];

	set("/web", "cpu.cfs_quota_us", "50000");
	set("/web", "cpu.cfs_burst_us", "20000");
	enforcer_free(&e);
	write_limits("[web]\nmax = 10%\nburst = 5ms\n");
	cr_assert_eq(limits_file_load(lpath, &fs, &lf, err, sizeof(err)), 0, "%s", err);
	enforcer_init(&e, &fs, &lf, jpath);
	e.log = logged;
	enforcer_pass(&e, true);
	const char *b = logged_at("/web cpu.cfs_burst_us: 20000 -> 5000"), *q = logged_at("/web cpu.cfs_quota_us: 50000 -> 10000");
	cr_assert(b && q && b < q, "%s", logbuf);
}

/* The engine afresh, on the limits of text. */
static void restart_with(const char *text)
{
	struct limits_file lf;
	char err[PATH_MAX + 256];

	enforcer_free(&e);
	write_limits(text);
	cr_assert_eq(limits_file_load(lpath, &fs, &lf, err, sizeof(err)), 0, "%s", err);
	enforcer_init(&e, &fs, &lf, jpath);
	e.log = logged;
}

/* A section dropped by a reload: its burst is put back before its quota, which the kernel refuses below the burst. */
Test(enforcer, reload_puts_the_burst_back_first, .init = setup, .fini = teardown)
{
	set("/web", "cpu.cfs_quota_us", "10000");
	set("/web", "cpu.cfs_burst_us", "0");
	restart_with("[web]\nmax = 50%\nburst = 20ms\n[soft]\nsoft_max = 50%\n");
	enforcer_pass(&e, true);
	cr_assert_str_eq(get("/web", "cpu.cfs_burst_us"), "20000");
	write_limits("[soft]\nsoft_max = 50%\n");
	logbuf[0] = 0;
	cr_assert_eq(enforcer_reload(&e, lpath), 0);
	const char *b = logged_at("/web cpu.cfs_burst_us: 20000 -> 0 (no longer"),
		   *q = logged_at("/web cpu.cfs_quota_us: 50000 -> 10000 (no longer");
	cr_assert(b && q && b < q, "%s", logbuf);
}

/*
 * A managed cgroup removed: the list keeps the order of the others, which
 * the restore at exit undoes newest first.
 */
Test(enforcer, removal_keeps_the_order, .init = setup, .fini = teardown)
{
	char cmd[PATH_MAX + 16];
	static const char *const want[] = { "cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.cfs_burst_us" };

	set("/web", "cpu.cfs_burst_us", "0");
	restart_with("[rival]\nweight = 300\n[web]\nmax = 50%\nburst = 20ms\n");
	enforcer_pass(&e, true);
	cr_assert_eq(e.n, 4);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/rival", dir);
	cr_assert_eq(system(cmd), 0);
	enforcer_pass(&e, false);
	cr_assert_eq(e.n, 3);
	for (size_t i = 0; i < 3; i++)
		cr_assert_str_eq(e.m[i].file, want[i], "entry %zu", i);
	/* Each entry is still found where it now is: the next pass adds none. */
	enforcer_pass(&e, false);
	cr_assert_eq(e.n, 3);
	logbuf[0] = 0;
	cr_assert_eq(enforcer_stop(&e), 0, "%s", logbuf);
	const char *b = logged_at("/web cpu.cfs_burst_us: 20000 -> 0"), *q = logged_at("/web cpu.cfs_quota_us: 50000 -> -1");
	cr_assert(b && q, "%s", logbuf);
}

/*
 * A pass whose values would make the journal too big to read back: none of
 * its changes is made, and the log says why and what to do.
 */
Test(enforcer, journal_too_big_no_change, .init = setup, .fini = teardown)
{
	char rel[PATH_MAX];
	size_t total = 0, len;

	/* Entries of cgroups the tree does not have, up to 31 bytes below the bound or closer (a line of /web is longer). */
	for (size_t i = 0; total + 8192 < JOURNAL_MAX_BYTES; i++) {
		int n = snprintf(rel, sizeof(rel), "/gone-%zu", i);
		while (n < 3900)
			n += snprintf(rel + n, sizeof(rel) - n, "/%0200d", 0);
		cr_assert_eq(journal_add(&e.j, 1, rel, "cpu.shares", "1024"), 0);
		total += n + 23;
	}
	char *text = journal_format(&e.j, &len);
	free(text);
	for (size_t i = 0; len + 31 <= JOURNAL_MAX_BYTES; i++) {
		char line[64];
		snprintf(rel, sizeof(rel), "/f%06zu", i);
		cr_assert_eq(journal_add(&e.j, 1, rel, "cpu.shares", "1024"), 0);
		len += snprintf(line, sizeof(line), "set 1 %s cpu.shares 1024\n", rel);
	}
	cr_assert_eq(journal_save(&e.j), 0);
	enforcer_pass(&e, true);
	cr_assert_str_eq(get("/web", "cpu.shares"), "1024");
	cr_assert_str_eq(get("/web", "cpu.cfs_quota_us"), "-1");
	cr_assert_not_null(strstr(logbuf, "would make it larger than 16 MiB, which could not be read back: 2 changes not made"),
			   "%s", logbuf);
	struct journal j;
	char err[512];
	cr_assert_eq(journal_load(jpath, &j, err, sizeof(err)), 0, "the journal on disk reads back: %s", err);
	journal_free(&j);
}
