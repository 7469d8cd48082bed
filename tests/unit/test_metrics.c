// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The exposition formats (exporter/expo.c) and cgsched's metric families (exporter/metrics.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "lib/cgname.h"
#include "exporter/expo.h"
#include "exporter/metrics.h"

/* What Prometheus 2.42 sends, and what curl sends. */
Test(expo, negotiate)
{
	cr_assert_eq(expo_negotiate("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
				    "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
		     EXPO_OPENMETRICS);
	cr_assert_eq(expo_negotiate("*/*"), EXPO_TEXT);
	cr_assert_eq(expo_negotiate(NULL), EXPO_TEXT);
	cr_assert_eq(expo_negotiate(""), EXPO_TEXT);
	cr_assert_eq(expo_negotiate("text/plain;version=0.0.4"), EXPO_TEXT);
	cr_assert_eq(expo_negotiate("application/openmetrics-text"), EXPO_OPENMETRICS);
	/* Text preferred by its q; only the draft version of OpenMetrics offered. */
	cr_assert_eq(expo_negotiate("application/openmetrics-text; q=0.2, text/plain; q=0.9"), EXPO_TEXT);
	cr_assert_eq(expo_negotiate("application/openmetrics-text;version=0.0.1"), EXPO_TEXT);
	cr_assert_eq(expo_negotiate("text/plain;q=0.5, application/openmetrics-text ; version=1.0.0"),
		     EXPO_OPENMETRICS);
	cr_assert_eq(expo_negotiate("application/openmetrics-text;q=0"), EXPO_TEXT);
}

Test(expo, numbers_exact)
{
	struct expo x;
	expo_init(&x, EXPO_TEXT);
	expo_ns_sec(&x, 0);
	expo_puts(&x, " ");
	expo_ns_sec(&x, 1500000000ULL);
	expo_puts(&x, " ");
	expo_ns_sec(&x, 2000);
	expo_puts(&x, " ");
	expo_ns_sec(&x, 3000000000ULL);
	expo_puts(&x, " ");
	expo_u64(&x, UINT64_MAX);
	cr_assert_str_eq(x.p, "0 1.5 0.000002 3 18446744073709551615");
	expo_free(&x);
}

/* The digits written two at a time, each length found from the bits: every boundary, against printf. */
Test(expo, numbers_as_printf)
{
	struct expo x;
	char want[64];
	uint64_t v[200];
	size_t n = 0;

	v[n++] = 0;
	v[n++] = UINT64_MAX;
	for (uint64_t p = 1; n + 3 < 200; p *= 10) {
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
		if (p > UINT64_MAX / 10)
			break;
	}
	for (uint64_t r = 88172645463325252ULL; n < 200;) { /* xorshift: values of every length */
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		v[n++] = r >> (r % 64);
	}
	expo_init(&x, EXPO_TEXT);
	expo_family(&x, "f_total", EXPO_COUNTER, "h");
	for (size_t i = 0; i < n; i++) {
		x.n = 0;
		expo_u64(&x, v[i]);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v[i]);
		cr_assert_str_eq(x.p, want);
		x.n = 0;
		expo_sample_u64_l(&x, "a=\"b\"", 5, NULL, v[i]);
		snprintf(want, sizeof(want), "f_total{a=\"b\"} %llu\n", (unsigned long long)v[i]);
		cr_assert_str_eq(x.p, want);
		/* Seconds: the fraction's nine digits less trailing zeros, and no point without one. */
		x.n = 0;
		expo_sample_sec(&x, NULL, NULL, v[i]);
		int len = snprintf(want, sizeof(want), "f_total %llu.%09llu", (unsigned long long)(v[i] / 1000000000ULL),
				   (unsigned long long)(v[i] % 1000000000ULL));
		while (want[len - 1] == '0')
			len--;
		if (want[len - 1] == '.')
			len--;
		want[len] = 0;
		strcat(want, "\n");
		cr_assert_str_eq(x.p, want, "%llu ns", (unsigned long long)v[i]);
	}
	expo_free(&x);
}

/* A writer on a buffer of its own gets what fits, and no more is asked of it. */
Test(expo, fixed_buffer_numbers)
{
	char b[8];
	struct expo t = { .p = b, .cap = sizeof(b) };

	expo_ns_sec(&t, 5000000); /* "0.005" */
	cr_assert(!t.oom);
	cr_assert_str_eq(b, "0.005");
	t.n = 0;
	expo_u64(&t, 1234567);
	cr_assert_str_eq(b, "1234567");
}

/* Bucket lines whose labels are long (a pod's cgroup path): whole, each begun alike. */
Test(expo, hist_long_labels)
{
	struct expo x;
	char lab[700];
	uint64_t slots[32] = { [0] = 2, [3] = 1 };

	memset(lab, 'a', sizeof(lab) - 1);
	lab[sizeof(lab) - 1] = 0;
	memcpy(lab, "cgroup=\"", 8);
	lab[sizeof(lab) - 2] = '"';
	expo_init(&x, EXPO_TEXT);
	expo_family(&x, "h_seconds", EXPO_HISTOGRAM, "h");
	size_t head = x.n;
	expo_hist_us(&x, lab, slots, 32, 17000);
	char *l = x.p + head;
	int lines = 0;
	for (char *e; (e = strchr(l, '\n')); l = e + 1, lines++) {
		cr_assert(!strncmp(l, "h_seconds_", 10));
		cr_assert(strstr(l, lab) == strchr(l, '{') + 1, "line %d: %.40s", lines, l);
	}
	/* le 2, 4, 8, 16 us, +Inf, _sum, _count */
	cr_assert_eq(lines, 7);
	cr_assert(strstr(x.p, "le=\"0.000016\"} 3\n"));
	cr_assert(strstr(x.p, "_sum{") && strstr(x.p, "} 0.000017\n"));
	expo_free(&x);
}

Test(expo, label_escaping)
{
	struct expo x;
	expo_init(&x, EXPO_TEXT);
	expo_label_value(&x, "a\"b\\c\nd");
	cr_assert_str_eq(x.p, "a\\\"b\\\\c\\nd");
	expo_free(&x);
}

/* Counters: the full name in the text format, the family without _total in OpenMetrics. */
Test(expo, family_headers)
{
	struct expo x;
	expo_init(&x, EXPO_TEXT);
	expo_family(&x, "a_seconds_total", EXPO_COUNTER, "h");
	expo_sample_sec(&x, "l=\"1\"", "k=\"2\"", 1000000000ULL);
	expo_family(&x, "b_info", EXPO_INFO, "i");
	expo_sample_u64(&x, NULL, NULL, 1);
	expo_finish(&x);
	cr_assert_str_eq(x.p, "# HELP a_seconds_total h\n# TYPE a_seconds_total counter\n"
			      "a_seconds_total{l=\"1\",k=\"2\"} 1\n"
			      "# HELP b_info i\n# TYPE b_info gauge\nb_info 1\n");
	expo_free(&x);
	expo_init(&x, EXPO_OPENMETRICS);
	expo_family(&x, "a_seconds_total", EXPO_COUNTER, "h");
	expo_sample_sec(&x, "l=\"1\"", NULL, 1000000000ULL);
	expo_family(&x, "b_info", EXPO_INFO, "i");
	expo_sample_u64(&x, NULL, NULL, 1);
	expo_finish(&x);
	cr_assert_str_eq(x.p, "# HELP a_seconds h\n# TYPE a_seconds counter\n# UNIT a_seconds seconds\n"
			      "a_seconds_total{l=\"1\"} 1\n"
			      "# HELP b i\n# TYPE b info\nb_info 1\n# EOF\n");
	expo_free(&x);
}

/* Buckets cumulative, in seconds, up to the last slot counted into; the top slot only in +Inf. */
Test(expo, histogram_log2_buckets)
{
	uint64_t slots[32] = {};
	struct expo x;

	slots[0] = 1; /* 0-1 us */
	slots[3] = 2; /* 8-15 us */
	expo_init(&x, EXPO_TEXT);
	expo_family(&x, "h_seconds", EXPO_HISTOGRAM, "h");
	expo_hist_us(&x, "c=\"a\"", slots, 32, 30000);
	cr_assert_str_eq(x.p, "# HELP h_seconds h\n# TYPE h_seconds histogram\n"
			      "h_seconds_bucket{c=\"a\",le=\"0.000002\"} 1\n"
			      "h_seconds_bucket{c=\"a\",le=\"0.000004\"} 1\n"
			      "h_seconds_bucket{c=\"a\",le=\"0.000008\"} 1\n"
			      "h_seconds_bucket{c=\"a\",le=\"0.000016\"} 3\n"
			      "h_seconds_bucket{c=\"a\",le=\"+Inf\"} 3\n"
			      "h_seconds_sum{c=\"a\"} 0.00003\n"
			      "h_seconds_count{c=\"a\"} 3\n");
	expo_free(&x);
	memset(slots, 0, sizeof(slots));
	slots[31] = 5; /* beyond the last bound: 31 buckets, all 0, then +Inf */
	expo_init(&x, EXPO_TEXT);
	expo_family(&x, "h_seconds", EXPO_HISTOGRAM, "h");
	expo_hist_us(&x, NULL, slots, 32, 1);
	cr_assert(strstr(x.p, "h_seconds_bucket{le=\"2147.483648\"} 0\nh_seconds_bucket{le=\"+Inf\"} 5\n"), "%s", x.p);
	cr_assert_null(strstr(x.p, "4294.967296"));
	expo_free(&x);
}

static const char *by(void *ctx, uint64_t id)
{
	return id == 7 ? "by_cgroup=\"/b\",by_cgroup_id=\"7\"" : "by_cgroup=\"/c\",by_cgroup_id=\"9\"";
}

static const char *by2(void *ctx, uint64_t id)
{
	static char b[3][64];
	snprintf(b[id % 3], sizeof(b[0]), "by_cgroup=\"/x\",by_cgroup_id=\"%llu\"", (unsigned long long)id);
	return b[id % 3];
}

/* A cgroup's families: zeros left out, kernel figures only for a limited one, names on _info. */
Test(metrics, families)
{
	struct cg_sample s[2] = {};
	struct kstat k = { .ok = true, .quota_us = 25000, .period_us = 100000, .nr_periods = 10, .nr_throttled = 4,
			   .throttled_ns = 300000000, .weight = 100, .has_bursts = true };
	struct kstat unl = { .ok = true, .quota_us = -1, .period_us = 100000, .weight = 50 };
	struct cgname who = { .unit = "a.service" };
	struct preempt_sample pre[] = { { 5, 7, 10, 0 }, { 5, 9, 30, 0 } };
	struct snapshot snap = { .npre = 2, .pre = pre };
	struct expo x;

	s[0].id = 5;
	s[0].c.oncpu_ns = 2500000000ULL;
	s[0].c.runq_count = 1;
	s[0].c.runq_slots[2] = 1;
	s[0].c.runq_sum_ns = 5000;
	s[0].c.thr_wait_ns = 100;
	s[1].id = 6;
	s[1].c.wakeups = 3;
	struct mx_cg cg[] = {
		{ .id = 5, .labels = "cgroup=\"/a\",cgroup_id=\"5\"", .s = &s[0], .k = &k, .who = &who },
		{ .id = 6, .labels = "cgroup=\"/d\",cgroup_id=\"6\"", .s = &s[1], .k = &unl },
	};
	struct metrics_input in = { .n = 2, .cg = cg, .snap = &snap, .top_preemptors = 1, .by_labels = by,
				    .self = { .version = "t", .backend = "b", .thr_backend = "t", .kstat_method = "files" } };

	expo_init(&x, EXPO_TEXT);
	metrics_render(&x, &in);
	cr_assert(strstr(x.p, "\ncgsched_oncpu_seconds_total{cgroup=\"/a\",cgroup_id=\"5\"} 2.5\n"));
	cr_assert_null(strstr(x.p, "cgsched_oncpu_seconds_total{cgroup=\"/d\""), "a zero shown");
	cr_assert(strstr(x.p, "\ncgsched_wakeups_total{cgroup=\"/d\",cgroup_id=\"6\"} 3\n"));
	cr_assert(strstr(x.p, "cgsched_runqueue_latency_seconds_count{cgroup=\"/a\",cgroup_id=\"5\"} 1\n"));
	cr_assert(strstr(x.p, "cgsched_wait_seconds_total{cgroup=\"/a\",cgroup_id=\"5\",cause=\"own_quota\"} 0.0000001\n"));
	/* the split's causes only with the split (or --why) */
	cr_assert_null(strstr(x.p, "cause=\"same_cgroup\""));
	/* The most frequent preemptor only. */
	cr_assert(strstr(x.p, "cgsched_preemptions_total{cgroup=\"/a\",cgroup_id=\"5\",by_cgroup=\"/c\",by_cgroup_id=\"9\"} 30\n"));
	cr_assert_null(strstr(x.p, "by_cgroup_id=\"7\""));
	cr_assert(strstr(x.p, "cgsched_cpu_stat_throttled_seconds_total{cgroup=\"/a\",cgroup_id=\"5\"} 0.3\n"));
	cr_assert(strstr(x.p, "cgsched_cpu_quota_seconds{cgroup=\"/a\",cgroup_id=\"5\"} 0.025\n"));
	cr_assert_null(strstr(x.p, "cgsched_cpu_quota_seconds{cgroup=\"/d\""), "unlimited has no quota");
	cr_assert_null(strstr(x.p, "cgsched_cpu_stat_nr_periods_total{cgroup=\"/d\""));
	cr_assert(strstr(x.p, "cgsched_cpu_weight{cgroup=\"/d\",cgroup_id=\"6\"} 50\n"));
	cr_assert(strstr(x.p, "cgsched_cgroup_info{cgroup=\"/a\",cgroup_id=\"5\",kind=\"unit\",unit=\"a.service\"} 1\n"));
	cr_assert(strstr(x.p, "cgsched_drops_total{reason=\"cgroup_map_full\"} 0\n"), "%s", strstr(x.p, "cgsched_drops"));
	expo_free(&x);
}

/* OpenMetrics: a histogram and an info family as the format wants them; HELP's quotes escaped. */
Test(metrics, openmetrics_families)
{
	struct cg_sample s = { .id = 5 };
	struct cgname who = { .unit = "a\"b.service" };
	struct preempt_sample pre[] = { { 5, 7, 10, 0 }, { 5, 8, 20, 0 }, { 5, 9, 30, 0 } };
	struct snapshot snap = { .npre = 3, .pre = pre };
	struct mx_cg cg[] = { { .id = 5, .labels = "cgroup=\"/a\",cgroup_id=\"5\"", .s = &s, .who = &who } };
	struct metrics_input in = { .n = 1, .cg = cg, .snap = &snap, .top_preemptors = 2, .by_labels = by2,
				    .self = { .version = "t", .backend = "b", .thr_backend = "t", .kstat_method = "files" } };
	struct expo x;

	s.c.runq_count = 2;
	s.c.runq_slots[0] = 2;
	expo_init(&x, EXPO_OPENMETRICS);
	metrics_render(&x, &in);
	expo_finish(&x);
	cr_assert(strstr(x.p, "# TYPE cgsched_runqueue_latency_seconds histogram\n# UNIT cgsched_runqueue_latency_seconds seconds\n"
			      "cgsched_runqueue_latency_seconds_bucket{cgroup=\"/a\",cgroup_id=\"5\",le=\"0.000002\"} 2\n"));
	cr_assert(strstr(x.p, "# TYPE cgsched_cgroup info\ncgsched_cgroup_info{cgroup=\"/a\",cgroup_id=\"5\",kind=\"unit\",unit=\"a\\\"b.service\"} 1\n"));
	cr_assert(strstr(x.p, "# TYPE cgsched_build info\n"));
	/* The two most frequent preemptors, most first; the third left out. */
	char *a = strstr(x.p, "by_cgroup_id=\"9\"} 30\n"), *b = strstr(x.p, "by_cgroup_id=\"8\"} 20\n");
	cr_assert(a && b && a < b, "%s", x.p);
	cr_assert_null(strstr(x.p, "by_cgroup_id=\"7\""));
	/* No raw quote in any HELP line. */
	for (char *h = strstr(x.p, "# HELP "); h; h = strstr(h + 1, "# HELP ")) {
		char *e = strchr(h, '\n');
		for (char *q = h; q < e; q++)
			cr_assert(*q != '"' || q[-1] == '\\', "raw quote in %.*s", (int)(e - h), h);
	}
	cr_assert(!strcmp(x.p + x.n - 6, "# EOF\n"));
	expo_free(&x);
}

/*
 * The split of waits by what ran (export's default) without the rest of
 * --why: its causes are shown, the waiting time and the named cgroups not;
 * with neither, none of them.
 */
Test(metrics, split_without_why)
{
	struct cg_sample s = { .id = 5 };
	struct snapshot snap = {};
	struct mx_cg cg[] = { { .id = 5, .labels = "cgroup=\"/a\",cgroup_id=\"5\"", .s = &s } };
	struct metrics_input in = { .split = true, .n = 1, .cg = cg, .snap = &snap, .by_labels = by,
				    .self = { .version = "t", .backend = "b", .thr_backend = "t", .kstat_method = "files" } };
	struct expo x;

	s.c.wb_same_ns = 2000000000ULL;
	s.c.wb_other_ns = 500000000ULL;
	s.c.some_ns = 1000000000ULL;
	expo_init(&x, EXPO_TEXT);
	metrics_render(&x, &in);
	cr_assert(strstr(x.p, "cgsched_wait_seconds_total{cgroup=\"/a\",cgroup_id=\"5\",cause=\"same_cgroup\"} 2\n"));
	cr_assert(strstr(x.p, "cgsched_wait_seconds_total{cgroup=\"/a\",cgroup_id=\"5\",cause=\"other_cgroups\"} 0.5\n"));
	cr_assert_null(strstr(x.p, "cgsched_waiting_seconds_total{"), "--why's waiting time without --why");
	expo_free(&x);
	in.split = false;
	expo_init(&x, EXPO_TEXT);
	metrics_render(&x, &in);
	cr_assert_null(strstr(x.p, "cause=\"same_cgroup\""), "the split's causes without the split");
	expo_free(&x);
}

/*
 * The counter list's metric column: every counter with a family comes out
 * under it, with its label and its own value (counter i is 100000 - 1000 i:
 * a mix-up shows, and its own quota's part, a difference, is not 0); a
 * family's help on its first counter only; the wait causes' labels are
 * --why's names.
 */
Test(metrics, every_listed_family_reaches_the_exposition)
{
	struct cg_sample s = { .id = 5 };
	struct kstat k = { .ok = true, .quota_us = 25000, .period_us = 100000 };
	struct snapshot snap = {};
	struct mx_cg cg[] = { { .id = 5, .labels = "cgroup=\"/a\",cgroup_id=\"5\"", .s = &s, .k = &k } };
	struct metrics_input in = { .why = true, .n = 1, .cg = cg, .snap = &snap, .by_labels = by,
				    .self = { .version = "t", .backend = "b", .thr_backend = "t", .kstat_method = "files" } };
	struct expo x, want;
	size_t shown = 0;

	for (size_t i = 0; i < CG_NCOUNTERS; i++)
		*(uint64_t *)((char *)&s.c + cg_counter_defs[i].offset) = 100000 - 1000 * i;
	expo_init(&x, EXPO_TEXT);
	metrics_render(&x, &in);
	for (size_t i = 0; i < CG_NCOUNTERS; i++) {
		const struct cg_counter_def *d = &cg_counter_defs[i];
		char name[128];
		bool first = true;
		if (!d->m.family)
			continue;
		for (size_t j = 0; j < i; j++)
			if (cg_counter_defs[j].m.family && !strcmp(cg_counter_defs[j].m.family, d->m.family))
				first = false;
		cr_assert(first ? d->m.help != NULL : d->m.help == NULL, "%s: help on the family's first counter only",
			  d->field);
		uint64_t v = d->m.flags & MX_OWNQ ? cg_own_quota_ns(&s.c) : 100000 - 1000 * i;
		snprintf(name, sizeof(name), "cgsched_%s", d->m.family);
		/* The sample line as the family would write it, after a newline. */
		expo_init(&want, EXPO_TEXT);
		expo_family(&want, name, EXPO_COUNTER, "h");
		size_t at = want.n - 1;
		if (d->m.flags & MX_SEC)
			expo_sample_sec(&want, cg[0].labels, d->m.label, v);
		else
			expo_sample_u64(&want, cg[0].labels, d->m.label, v);
		cr_assert(strstr(x.p, want.p + at), "%s: no %s", d->field, want.p + at + 1);
		expo_free(&want);
		if (d->json == CGJ_WHY && d->m.label) {
			char key[64];
			snprintf(key, sizeof(key), "cause=\"%.*s\"", (int)strlen(d->key) - 3, d->key);
			cr_assert_str_eq(d->m.label, key, "%s: a cause label other than its JSON key's", d->field);
		}
		shown++;
	}
	cr_assert_geq(shown, 14, "the list's families: %zu", shown);
	expo_free(&x);
}

/*
 * Rendered in pieces (as the exporter sends it), the exposition is the same
 * text as rendered whole, byte for byte, for any piece size: 40 cgroups,
 * every family and preemptor pairs for some (one pair of a cgroup not
 * shown), with and without --why, in both formats.
 */
Test(metrics, pieces_make_the_whole)
{
	static struct cg_sample s[40];
	static struct kstat k[40];
	static struct mx_cg cg[40];
	static char lab[40][64];
	struct cgname who = { .unit = "a.service", .container = "c1" };
	struct preempt_sample pre[200];
	size_t np = 0;

	for (int i = 0; i < 40; i++) {
		s[i].id = 10 + i * 3;
		for (size_t j = 0; j < CG_NCOUNTERS; j++)
			*(uint64_t *)((char *)&s[i].c + cg_counter_defs[j].offset) = i % 3 ? 1000 * i + j : 0;
		s[i].c.runq_count = i % 4;
		s[i].c.runq_slots[i % 20] = i % 4;
		s[i].c.thr_count = s[i].c.thr_slots[3] = i % 5 == 0;
		k[i] = (struct kstat){ .ok = i % 7 != 0, .quota_us = i % 2 ? 25000 : -1, .period_us = 100000,
				       .nr_periods = i, .weight = 100 + i, .has_bursts = i % 3 == 0, .burst_us = 5 };
		snprintf(lab[i], sizeof(lab[i]), "cgroup=\"/c%d\",cgroup_id=\"%d\"", i, 10 + i * 3);
		cg[i] = (struct mx_cg){ .id = s[i].id, .labels = lab[i], .s = &s[i], .k = i % 11 ? &k[i] : NULL,
					.who = i % 2 ? &who : NULL, .psi_ok = i % 2, .psi_us = i };
		/* i % 9 == 0: the pairs of an id between two cgroups', one not shown */
		for (int p = 0; p < i % 5; p++)
			pre[np++] = (struct preempt_sample){ s[i].id + (i % 9 == 0), 10 + p, 5 * p + i, 7 * p };
	}
	struct snapshot snap = { .npre = np, .pre = pre };
	struct mx_prog pr[] = { { "a", 5, 6 }, { "b", 7, 8 } };
	struct metrics_input in = { .split = true, .n = 40, .cg = cg, .snap = &snap, .top_preemptors = 2, .by_labels = by2,
				    .host_psi_ok = true, .host_psi_us = 77,
				    .self = { .version = "t", .backend = "b", .thr_backend = "t", .kstat_method = "files",
					      .bpf_stats = true, .nprogs = 2, .progs = pr } };

	for (int c = 0; c < 4; c++) {
		struct expo whole, piece, joined;
		in.why = c & 1;
		in.runq = NULL;
		expo_init(&whole, c & 2 ? EXPO_OPENMETRICS : EXPO_TEXT);
		in.values = NULL;
		metrics_render(&whole, &in);
		cr_assert(strstr(whole.p, "cgsched_behind_seconds_total{") || !in.why);
		/* The counters taken beforehand, counter by counter (the exporter's way): the same text. */
		static uint64_t vals[CG_NCOUNTERS * 43];
		static struct mx_hist runq[40];
		struct expo taken;
		for (int i = 0; i < 40; i++)
			metrics_take_figures(&s[i].c, vals, runq, 43, i);
		in.values = vals;
		in.stride = 43;
		in.runq = runq;
		expo_init(&taken, whole.fmt);
		metrics_render(&taken, &in);
		cr_assert(taken.n == whole.n && !memcmp(taken.p, whole.p, whole.n), "with the counters taken: not the same text");
		expo_free(&taken);
		/* The pieces below: from the samples, and from the counters taken (c 2, 3). */
		in.values = c & 2 ? vals : NULL;
		in.runq = c & 2 ? runq : NULL;
		for (size_t until = 1; until < 100000; until *= 7) {
			struct mx_cursor cur;
			size_t pieces = 0;
			bool done = false;
			expo_init(&piece, whole.fmt);
			expo_init(&joined, whole.fmt);
			metrics_cursor_init(&cur);
			while (!done && pieces < 100000) {
				piece.n = 0;
				done = metrics_render_some(&piece, &in, &cur, until);
				expo_put(&joined, piece.p, piece.n);
				pieces++;
			}
			metrics_cursor_free(&cur);
			cr_assert(done);
			cr_assert_eq(joined.n, whole.n, "in pieces of %zu: %zu bytes, whole %zu", until, joined.n, whole.n);
			cr_assert(!memcmp(joined.p, whole.p, whole.n), "in pieces of %zu: not the same text", until);
			/* a piece stops at the first cgroup past the bound: many pieces for a small one */
			cr_assert(until > whole.n || pieces > 1, "%zu pieces of %zu", pieces, until);
			expo_free(&piece);
			expo_free(&joined);
		}
		expo_free(&whole);
	}
}

/*
 * kubelet's names on the label block where known (a pod's namespace and
 * name, its container's name; a unit only where the cgroup is no
 * container), by_ for a preemptor's; the info series then leaves them out,
 * and keeps them with --no-name-labels.
 */
/* The writer's text so far is want (its buffer is not a C string). */
static bool block_is(const struct expo *t, const char *want)
{
	return t->n == strlen(want) && !memcmp(t->p, want, t->n);
}

Test(metrics, name_labels_as_kubelet_writes_them)
{
	struct cgname ctr = { .unit = "cri-containerd-3f.scope", .runtime = "containerd", .container = "3f",
			      .pod_uid = "u-1", .qos = "burstable", .pod_name = "web-7d4f9", .pod_namespace = "shop",
			      .container_name = "nginx" };
	struct cgname pod = { .unit = "kubepods-burstable-podu_1.slice", .pod_uid = "u-1", .qos = "burstable",
			      .pod_name = "web-7d4f9", .pod_namespace = "shop" };
	struct cgname unit = { .unit = "web\"front.service" };
	struct cgname nameless = { .unit = "cri-containerd-4a.scope", .runtime = "containerd", .container = "4a",
				   .pod_uid = "u-2", .qos = "besteffort" };
	struct expo t = {};

	metrics_cg_labels(&t, "", "/c", 7, &ctr);
	cr_assert(block_is(&t, "cgroup=\"/c\",cgroup_id=\"7\",namespace=\"shop\",pod=\"web-7d4f9\",container=\"nginx\""), "%.*s", (int)t.n, t.p);
	t.n = 0;
	metrics_cg_labels(&t, "by_", "/p", 8, &pod);
	cr_assert(block_is(&t, "by_cgroup=\"/p\",by_cgroup_id=\"8\",by_namespace=\"shop\",by_pod=\"web-7d4f9\""), "%.*s", (int)t.n, t.p);
	t.n = 0;
	metrics_cg_labels(&t, "", "/u", 9, &unit);
	cr_assert(block_is(&t, "cgroup=\"/u\",cgroup_id=\"9\",unit=\"web\\\"front.service\""), "%.*s", (int)t.n, t.p);
	t.n = 0;
	metrics_cg_labels(&t, "", "/n", 10, &nameless);
	cr_assert(block_is(&t, "cgroup=\"/n\",cgroup_id=\"10\""), "%.*s", (int)t.n, t.p);
	t.n = 0;
	metrics_cg_labels(&t, "", "/c", 7, NULL);
	cr_assert(block_is(&t, "cgroup=\"/c\",cgroup_id=\"7\""), "%.*s", (int)t.n, t.p);
	expo_free(&t);

	struct cg_sample s = { .id = 7 };
	struct snapshot snap = {};
	struct mx_cg cg[] = { { .id = 7, .labels = "cgroup=\"/c\",cgroup_id=\"7\",namespace=\"shop\",pod=\"web-7d4f9\",container=\"nginx\"",
				.s = &s, .who = &ctr, .named = true } };
	struct metrics_input in = { .n = 1, .cg = cg, .snap = &snap, .by_labels = by,
				    .self = { .version = "t", .backend = "b", .thr_backend = "t", .kstat_method = "files" } };
	struct expo x;

	expo_init(&x, EXPO_TEXT);
	metrics_render(&x, &in);
	cr_assert(strstr(x.p, "cgsched_cgroup_info{cgroup=\"/c\",cgroup_id=\"7\",namespace=\"shop\",pod=\"web-7d4f9\",container=\"nginx\","
			      "kind=\"pod\",unit=\"cri-containerd-3f.scope\",runtime=\"containerd\",container_id=\"3f\",pod_uid=\"u-1\",qos=\"burstable\"} 1\n"),
		  "%s", strstr(x.p, "cgsched_cgroup_info{"));
	expo_free(&x);
	cg[0] = (struct mx_cg){ .id = 7, .labels = "cgroup=\"/c\",cgroup_id=\"7\"", .s = &s, .who = &ctr };
	expo_init(&x, EXPO_TEXT);
	metrics_render(&x, &in);
	cr_assert(strstr(x.p, "cgsched_cgroup_info{cgroup=\"/c\",cgroup_id=\"7\",kind=\"pod\",unit=\"cri-containerd-3f.scope\",runtime=\"containerd\","
			      "container_id=\"3f\",container=\"nginx\",pod_uid=\"u-1\",pod=\"web-7d4f9\",namespace=\"shop\",qos=\"burstable\"} 1\n"),
		  "%s", strstr(x.p, "cgsched_cgroup_info{"));
	expo_free(&x);
}
