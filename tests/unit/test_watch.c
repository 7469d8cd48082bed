// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched watch's pure parts: triggers, the history's packing and bound, incident names and files, sizes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cgname.h"
#include "lib/util.h"
#include "watch/history.h"
#include "watch/incident.h"
#include "watch/trigger.h"

Test(trigger, parses_rules_limits_and_which)
{
	struct trigger t;
	char err[256];

	cr_assert_eq(trigger_parse("max-runq-p99=5ms", &t, err, sizeof(err)), 0);
	cr_assert_eq(t.m, TRIG_P99);
	cr_assert_float_eq(t.limit, 5e6, 1);
	cr_assert_eq(t.sel, SEL_ALL);
	cr_assert_eq(trigger_parse("max-runq-p99=7", &t, err, sizeof(err)), 0);
	cr_assert_float_eq(t.limit, 7e6, 1, "a bare number is ms, as check's");
	cr_assert_eq(trigger_parse("max-throttled-run=5@/kubepods/*", &t, err, sizeof(err)), 0);
	cr_assert_eq(t.m, TRIG_THR_RUN);
	cr_assert_eq(t.sel, SEL_PATH);
	cr_assert_str_eq(t.pattern, "/kubepods/*");
	cr_assert_eq(trigger_parse("max-throttled-pct=12.5@unit=web*.service", &t, err, sizeof(err)), 0);
	cr_assert_eq(t.sel, SEL_UNIT);
	cr_assert_float_eq(t.limit, 12.5, 1e-9);
	cr_assert_eq(trigger_parse("max-behind-one-pct=50@pod=api-*", &t, err, sizeof(err)), 0);
	cr_assert_eq(t.sel, SEL_POD);
	/* Bad: an unknown rule, no limit, out of range, a bad selector. */
	cr_assert_eq(trigger_parse("max-p99=5ms", &t, err, sizeof(err)), -1);
	cr_assert(strstr(err, "max-runq-p99"), "the rules are named: %s", err);
	cr_assert_eq(trigger_parse("max-runq-p99=", &t, err, sizeof(err)), -1);
	cr_assert_eq(trigger_parse("max-throttled-pct=101", &t, err, sizeof(err)), -1);
	cr_assert_eq(trigger_parse("max-throttled-run=0", &t, err, sizeof(err)), -1);
	cr_assert_eq(trigger_parse("max-runq-p99=fast", &t, err, sizeof(err)), -1);
	cr_assert_eq(trigger_parse("max-runq-p99=5ms@kubepods", &t, err, sizeof(err)), -1);
	cr_assert_eq(trigger_parse("max-runq-p99=5ms@", &t, err, sizeof(err)), -1);
}

Test(trigger, selects_by_glob_and_name_and_fires_over_its_limit)
{
	struct trigger t;
	struct cgname who = {};
	char err[256];
	double v;

	trigger_parse("max-runq-p99=5ms@/a/*", &t, err, sizeof(err));
	cr_assert(trigger_selects(&t, "/a/b", NULL));
	cr_assert(!trigger_selects(&t, "/a/b/c", NULL), "as limit files: * stays within one level");
	cr_assert(!trigger_selects(&t, "/ab", NULL));
	trigger_parse("max-runq-p99=5ms@unit=web-*", &t, err, sizeof(err));
	strcpy(who.unit, "web-1.service");
	cr_assert(trigger_selects(&t, "/system.slice/web-1.service", &who));
	cr_assert(!trigger_selects(&t, "/system.slice/web-1.service", NULL));
	struct trig_figures f = { .p99_ns = 6e6, .has_runq = true };
	cr_assert(trigger_fires(&t, &f, &v));
	cr_assert_float_eq(v, 6e6, 1);
	f.p99_ns = 5e6;
	cr_assert(!trigger_fires(&t, &f, &v), "over the limit, not at it");
	trigger_parse("max-throttled-run=3", &t, err, sizeof(err));
	struct trig_figures r = { .run = 3 };
	cr_assert(!trigger_fires(&t, &r, &v), "no grid: no run to measure");
	r.has_run = true;
	cr_assert(trigger_fires(&t, &r, &v), "3 in a row reach a limit of 3");
}

static struct cg_sample sample(uint64_t id, uint64_t oncpu, uint64_t waits)
{
	struct cg_sample s = { .id = id };

	s.c.oncpu_ns = oncpu;
	s.c.runq_count = waits;
	s.c.runq_slots[3] = waits;
	s.runq_max_ns = 12345;
	return s;
}

Test(history, a_row_packs_small_and_back_whole)
{
	uint8_t buf[HIST_ROW_MAX];
	struct cg_sample s = sample(77, 123456789, 42), back;
	struct kstat_fig kf = { .id = 77, .k = { .ok = true, .quota_us = -1, .period_us = 100000, .usage_ns = -1,
						  .period_end_ns = 987654321 },
				.g = { .periods = 10, .throttled = 4, .throttled_ns = 55555 } },
			 kb;
	bool has_k;

	size_t n = hist_pack_row(buf, &s, &kf);
	cr_assert_lt(n, 120, "a row of 3 counters and its kernel figures: %zu bytes", n);
	cr_assert_eq(hist_unpack_row(buf, n, &back, &kb, &has_k), n);
	cr_assert(has_k);
	cr_assert_eq(memcmp(&back.c, &s.c, sizeof(s.c)), 0);
	cr_assert_eq(back.runq_max_ns, 12345);
	cr_assert_eq(kb.k.quota_us, -1);
	cr_assert_eq(kb.k.usage_ns, -1);
	cr_assert_eq(kb.k.period_end_ns, 987654321);
	cr_assert_eq(kb.g.throttled_ns, 55555);
	/* Cut short: malformed, not read past its end. */
	cr_assert_eq(hist_unpack_row(buf, n - 1, &back, &kb, &has_k), 0);
	n = hist_pack_row(buf, &s, NULL);
	cr_assert_eq(hist_unpack_row(buf, n, &back, &kb, &has_k), n);
	cr_assert(!has_k);
}

Test(history, a_window_sums_its_intervals_and_the_bound_lets_the_oldest_go)
{
	struct history h;
	struct cg_sample rows[2];
	struct snapshot d = { .cg = rows, .n = 2 };

	history_init(&h, 1 << 20);
	for (int i = 0; i < 10; i++) {
		rows[0] = sample(5, 1000, 1);
		rows[1] = sample(9, 2000, 2);
		d.drops[CGS_DROP_WAIT_LOST] = 1;
		cr_assert_eq(history_add(&h, &d, NULL, (uint64_t)i * 100, (uint64_t)(i + 1) * 100), 0);
	}
	struct snapshot w;
	struct idtab kf;
	uint64_t t0, t1;
	/* Intervals ending in (300, 700]: 4 of them. */
	cr_assert_eq(history_window(&h, 300, 700, NULL, NULL, &w, &kf, &t0, &t1), 0);
	cr_assert_eq(t0, 300);
	cr_assert_eq(t1, 700);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.cg[0].id, 5);
	cr_assert_eq(w.cg[0].c.oncpu_ns, 4000);
	cr_assert_eq(w.cg[1].c.runq_count, 8);
	cr_assert_eq(w.drops[CGS_DROP_WAIT_LOST], 4);
	snapshot_free(&w);
	idtab_free(&kf);
	/* A bound of a third of what is kept: the oldest go, counted; the newest stay. */
	cr_assert_eq(h.nchunks, 1, "ten small intervals share a chunk");
	h.budget = h.bytes / 3;
	history_trim(&h);
	cr_assert_eq(h.dropped_iv, 9, "the chunk is the newest's too: all the others go");
	cr_assert_eq(history_count(&h), 1);
	cr_assert_eq(history_window(&h, 900, 1000, NULL, NULL, &w, &kf, &t0, &t1), 0);
	cr_assert_eq(w.cg[0].c.oncpu_ns, 1000, "the newest is kept");
	snapshot_free(&w);
	idtab_free(&kf);
	/* Episodes before the oldest interval kept go with it. */
	struct cgs_episode e = { .cgid = 5, .start_ns = 10, .end_ns = 20 };
	history_add_episode(&h, &e);
	history_trim(&h);
	cr_assert_null(history_episode(&h, 0));
	history_free(&h);
}

/* Rows of n cgroups with an interval's worth of counters each. */
static void big_interval(struct history *h, struct cg_sample *rows, size_t n, uint64_t i)
{
	struct snapshot d = { .cg = rows, .n = n };

	for (size_t k = 0; k < n; k++)
		rows[k] = sample(k + 1, 1000000 + i, 500 + k);
	cr_assert_eq(history_add(h, &d, NULL, i * 100, (i + 1) * 100), 0);
}

Test(history, rows_live_in_chunks_let_go_whole_within_the_bound)
{
	struct history h;
	static struct cg_sample rows[200];

	/* The smallest --memory: chunks of 16K, a 16th. */
	history_init(&h, 256 << 10);
	cr_assert_eq(h.chunk_size, 16 << 10);
	for (uint64_t i = 0; i < 40; i++)
		big_interval(&h, rows, 200, i);
	cr_assert_gt(h.nchunks, 2, "40 intervals of 200 rows fill chunks: %zu", h.nchunks);
	size_t chunks = h.nchunks;
	/* Half a chunk under what is kept: the oldest chunk goes, and only the intervals in it. */
	h.budget = h.bytes - h.chunk_size / 2;
	history_trim(&h);
	cr_assert_eq(h.nchunks, chunks - 1);
	cr_assert_leq(h.bytes, h.budget);
	cr_assert_gt(h.dropped_iv, 0);
	cr_assert_lt(h.dropped_iv, 40 / (chunks - 1) + 2, "%llu let go of 40 in %zu chunks",
		     (unsigned long long)h.dropped_iv, chunks);
	cr_assert_eq(h.dropped_iv + history_count(&h), 40);
	/* Every interval kept reads back whole. */
	struct snapshot w;
	struct idtab kf;
	uint64_t t0, t1;
	cr_assert_eq(history_window(&h, 0, 4000, NULL, NULL, &w, &kf, &t0, &t1), 0);
	cr_assert_eq(w.n, 200);
	uint64_t want = 0;
	for (uint64_t i = h.dropped_iv; i < 40; i++)
		want += 1000000 + i;
	cr_assert_eq(w.cg[0].c.oncpu_ns, want);
	snapshot_free(&w);
	idtab_free(&kf);
	/* An interval bigger than a chunk has its own; the horizon lets all but the newest go. */
	static struct cg_sample many[2000];
	big_interval(&h, many, 2000, 40);
	cr_assert_gt(h.last->size, h.chunk_size);
	history_forget_before(&h, 4100);
	cr_assert_eq(history_count(&h), 1);
	cr_assert_eq(h.nchunks, 1, "every older chunk unmapped");
	history_free(&h);
}

/* Waits and episodes come between intervals: each is held to the bound as it comes. */
Test(history, events_between_intervals_stay_within_the_bound)
{
	struct history h;
	static struct cg_sample rows[200];

	history_init(&h, 256 << 10);
	for (uint64_t i = 0; i < 40; i++) {
		big_interval(&h, rows, 200, i);
		history_trim(&h);
	}
	cr_assert_leq(h.bytes, h.budget);
	uint64_t let_go = h.dropped_iv;
	/* More waits than the bound holds, after the last interval. */
	for (uint64_t i = 0; i < 10000; i++) {
		struct cgs_wait w = { .cgid = 5, .start_ns = 3990 + i, .end_ns = 4000 + i };
		history_add_wait(&h, &w);
		cr_assert_leq(h.bytes, h.budget, "%zu bytes after wait %llu", h.bytes, (unsigned long long)i);
	}
	cr_assert_gt(h.dropped_iv, let_go, "the oldest intervals went first");
	cr_assert_eq(history_count(&h), 1, "the newest interval stays");
	cr_assert_gt(h.dropped_wt, 0, "then the oldest waits, counted");
	struct cgs_episode e = { .cgid = 5, .start_ns = 4000, .end_ns = 14000 };
	history_add_episode(&h, &e);
	cr_assert_leq(h.bytes, h.budget);
	history_free(&h);
}

Test(incident, names_from_paths_and_sizes)
{
	char s[32];
	uint64_t b;

	incident_slug("/kubepods/pod 1/c:x", s, sizeof(s));
	cr_assert_str_eq(s, "kubepods_pod-1_c:x");
	incident_slug("/", s, sizeof(s));
	cr_assert_str_eq(s, "root");
	incident_slug("/a/very/long/path/that/goes/on/and/on", s, 8);
	cr_assert_eq(strlen(s), 7);
	cr_assert_eq(parse_size("64M", &b), 0);
	cr_assert_eq(b, 64ULL << 20);
	cr_assert_eq(parse_size("512K", &b), 0);
	cr_assert_eq(b, 512ULL << 10);
	cr_assert_eq(parse_size("1.5GiB", &b), 0);
	cr_assert_eq(b, 3ULL << 29);
	cr_assert_eq(parse_size("65536", &b), 0);
	cr_assert_eq(b, 65536);
	cr_assert_eq(parse_size("64X", &b), -EINVAL);
	cr_assert_eq(parse_size("-1M", &b), -EINVAL);
}

/* A directory under /tmp for one test: DIR/inc (root's, 755) and DIR/victim with two files. */
static void victim_setup(char *base, char *inc, char *victim, size_t n)
{
	char f[512];

	cr_assert_not_null(mkdtemp(base));
	snprintf(inc, n, "%s/inc", base);
	snprintf(victim, n, "%s/victim", base);
	cr_assert_eq(mkdir(inc, 0755), 0);
	cr_assert_eq(chmod(inc, 0755), 0);
	cr_assert_eq(mkdir(victim, 0755), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(f, sizeof(f), "%s/file%d", victim, i);
		FILE *fp = fopen(f, "w");
		cr_assert_not_null(fp);
		fputs("precious\n", fp);
		fclose(fp);
	}
}

static int victim_files(const char *victim)
{
	char f[512];
	int n = 0;

	for (int i = 0; i < 2; i++) {
		snprintf(f, sizeof(f), "%s/file%d", victim, i);
		n += access(f, F_OK) == 0;
	}
	return n;
}

static void victim_teardown(const char *base)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	cr_assert_eq(system(cmd), 0);
}

/*
 * Symlinks named as a half-written incident (before the start) and as the
 * oldest incident (after it): neither the stale sweep at the start nor the
 * bound removes anything through them. They are not counted, and are left where they are.
 */
Test(incident, planted_symlinks_are_never_followed)
{
	char base[] = "/tmp/cgs-inc-XXXXXX", inc[256], victim[256], l1[512], l2[512];
	const char *why = NULL;
	struct incident_dir d;
	struct incident in;
	char names[8][256];

	victim_setup(base, inc, victim, sizeof(inc));
	snprintf(l1, sizeof(l1), "%s/.20200101-000000-asked-root.new-AbCdEf", inc);
	snprintf(l2, sizeof(l2), "%s/00000000-000000-asked-root", inc);
	cr_assert_eq(symlink(victim, l1), 0);
	cr_assert_eq(incident_dir_open(&d, inc, 1, &why), 0, "%s", why ? why : "");
	cr_assert_eq(d.stale, 0, "a symlink is not a half-written incident");
	cr_assert_eq(victim_files(victim), 2, "the start removed files through a symlink");
	cr_assert_eq(symlink(victim, l2), 0);
	cr_assert_eq(incident_list(&d, names, 8), 0, "a symlink is not an incident");
	for (int i = 0; i < 2; i++) {
		char name[64];
		snprintf(name, sizeof(name), "20260101-00000%d-asked-root", i);
		cr_assert_eq(incident_begin(&d, name, &in), 0);
		cr_assert_eq(incident_put(&in, "summary.txt", "x\n", 2), 0);
		cr_assert_eq(incident_end(&d, &in, true), 0);
	}
	cr_assert_eq(victim_files(victim), 2, "the bound removed files through a symlink");
	cr_assert_eq(d.written, 2);
	cr_assert_eq(d.removed, 1, "the older real incident went for the bound");
	cr_assert_eq(incident_list(&d, names, 8), 1);
	cr_assert_str_eq(names[0], "20260101-000001-asked-root");
	struct stat st;
	cr_assert_eq(lstat(l1, &st), 0);
	cr_assert_eq(lstat(l2, &st), 0, "the symlinks are left alone");
	incident_dir_close(&d);
	victim_teardown(base);
}

/* DIR is refused (-EPERM, why says which) unless this user owns it and no group or other may write it. */
Test(incident, dir_must_be_ours_alone)
{
	char base[] = "/tmp/cgs-inc-XXXXXX", inc[256], victim[256];
	const char *why = NULL;
	struct incident_dir d;

	victim_setup(base, inc, victim, sizeof(inc));
	cr_assert_eq(chmod(inc, 0777), 0);
	cr_assert_eq(incident_dir_open(&d, inc, 1, &why), -EPERM);
	cr_assert_str_eq(why, INCIDENT_DIR_WIDE);
	incident_dir_close(&d);
	cr_assert_eq(chmod(inc, 01777), 0);
	cr_assert_eq(incident_dir_open(&d, inc, 1, &why), -EPERM, "the sticky bit lets others plant names too");
	incident_dir_close(&d);
	cr_assert_eq(chmod(inc, 0775), 0);
	cr_assert_eq(incident_dir_open(&d, inc, 1, &why), -EPERM);
	incident_dir_close(&d);
	cr_assert_eq(chmod(inc, 0755), 0);
	if (geteuid() == 0) {
		cr_assert_eq(chown(inc, 12345, 12345), 0);
		cr_assert_eq(incident_dir_open(&d, inc, 1, &why), -EPERM);
		cr_assert_str_eq(why, INCIDENT_DIR_NOT_OURS);
		incident_dir_close(&d);
		cr_assert_eq(chown(inc, 0, 0), 0);
	}
	cr_assert_eq(incident_dir_open(&d, inc, 1, &why), 0);
	incident_dir_close(&d);
	victim_teardown(base);
}
