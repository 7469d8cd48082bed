// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched top: a table per interval, one row per cgroup active in it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/timeline_rec.h"
#include "out/group.h"
#include "out/json_out.h"
#include "out/tasks_out.h"
#include "figures/kstat_src.h"
#include "kernel/psi.h"
#include "out/report.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched [top] [OPTIONS]\n"
	"Every interval, one row per cgroup of the cpu controller that ran or waited:\n"
	"CPU% (100 = one CPU), run-queue latency p50/p99/max, wake-ups, voluntary and\n"
	"involuntary switches, throttling by its own quota (THR% of the interval,\n"
	"episodes, p99 length), QUOTA% of its quota used, and notes: the cgroup whose\n"
	"tasks preempted it most, an ancestor whose quota held it.\n"
	"\n"
	"  -i, --interval DUR     seconds between tables, or with a unit: 500ms, 2s (default 1s)\n"
	"  -n, --count N          stop after N intervals (default: until Ctrl-C)\n"
	"  -s, --sort KEY         cpu (default), p50, p99, max, wakeups, vol, invol, thr, path\n"
	"  -r, --rows N           show the first N rows (default 20, 0 = all)\n"
	"      --cgroup PATH      only this cgroup and its descendants (repeatable)\n"
	"      --group-by KEY     one row per unit, container or pod (summed), or per\n"
	"                         path (default); the WHO column says whose a cgroup is\n"
	"      --tasks            one row per process instead (with --cgroup: inside it)\n"
	"      --threads          with --tasks: one row per thread\n"
	"      --why              split each cgroup's waits into causes (its quota, a parent's,\n"
	"                         another cgroup, ...); a verdict line each in the summary\n"
	TIMELINE_HELP
	"      --max-tasks N      bound of the per-task map (default 4096); tasks beyond\n"
	"                         it are counted as drops (tasks_full)\n"
	"      --json             one JSON object per interval (docs/json.md)\n"
	"      --max-cgroups N    bound of the per-cgroup map (default 1024)\n"
	"      --sched-backend B  scheduler backend: tp_btf, tp_btf-pidhash or raw_tp\n"
	"                         (default: the first that works)\n"
	"      --throttle-backend B  fentry, kprobe or tracepoint (default: the first that\n"
	"                         works; --backend is its old name)\n"
	PRIORITY_HELP
	"  -q, --quiet            no start-up line on stderr\n"
	"  -v, --verbose          libbpf's messages, backend probing, and each refresh's CPU\n"
	"                         time (maps, kernel figures, report) on stderr\n"
	"\n"
	"On Ctrl-C (SIGINT) or SIGTERM, or after -n intervals, a summary since start.\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched                          # a table every second\n"
	"  cgsched top -i 5 -s p99 -r 10    # ten worst run-queue tails, every 5 s\n"
	"  cgsched top --cgroup /kubepods --json -n 1\n"
	"  cgsched top --group-by pod -s p99     # pods by run-queue tail\n";

struct top_opts {
	struct common_opts c;
	uint64_t interval_ns;
	uint64_t count;
	uint64_t rows;
	enum sort_key sort;
	enum group_by group;
	bool json, quiet;
};

static int top_opt(void *ctx, int c, const char *arg)
{
	struct top_opts *o = ctx;

	switch (c) {
	case 'i':
		if (parse_duration_ns(arg, 1000000000ULL, &o->interval_ns) ||
		    o->interval_ns < 10000000ULL || o->interval_ns > 3600000000000ULL) {
			cgs_err("-i %s: expected a duration from 10ms to 1h (e.g. 1, 500ms, 2s)", arg);
			return -1;
		}
		return 0;
	case 'n':
		if (parse_u64(arg, 1, UINT32_MAX, &o->count)) {
			cgs_err("-n %s: expected a whole number of intervals, at least 1", arg);
			return -1;
		}
		return 0;
	case 's':
		if (sort_key_parse(arg, &o->sort)) {
			cgs_err("-s %s: sort by cpu, p50, p99, max, wakeups, vol, invol, thr or path", arg);
			return -1;
		}
		return 0;
	case 'r':
		if (parse_u64(arg, 0, UINT32_MAX, &o->rows)) {
			cgs_err("-r %s: expected a whole number of rows (0 = all)", arg);
			return -1;
		}
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_GROUP_BY:
		if (group_by_parse(arg, &o->group)) {
			cgs_err("--group-by %s: group by unit, container, pod or path", arg);
			return -1;
		}
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	}
	return 1;
}

static int parse(struct top_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "rows", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "group-by", required_argument, NULL, OPT_GROUP_BY },
		TASKS_LONG_OPTS("tasks"),
		WHY_LONG_OPT,
		TIMELINE_LONG_OPTS,
		{ "quiet", no_argument, NULL, 'q' },
		COMMON_LONG_OPTS,
		{},
	};
	const struct cmd_spec spec = { "top", usage, "i:n:s:r:qvh", longs, top_opt, o, &o->c, NULL, 0, NULL };
	int first;

	common_init(&o->c);
	o->interval_ns = 1000000000ULL;
	o->rows = 20;
	o->sort = SORT_CPU;
	int err = cmd_parse(&spec, argc, argv, &first);
	if (!err)
		err = common_tasks_finish(&o->c, "--tasks");
	if (!err)
		err = common_timeline_finish(&o->c);
	if (!err && o->c.tasks && o->group != GROUP_PATH) {
		cgs_err("--tasks with --group-by: choose one (rows per task, or per group)");
		return CGS_EXIT_USAGE;
	}
	return err;
}

/* CPU time of a refresh's parts, for -v: where 10,000 cgroups' time goes. */
struct refresh_cost {
	uint64_t maps_ns, kernel_ns, rest_ns;
};

/* --why: the kernel's PSI beside each row's causes (the cgroup's on v2, else the host's). */
static void why_psi(struct report *r, struct session *s, struct psi_track *pt, bool summary, size_t limit)
{
	size_t n = limit && limit < r->n ? limit : r->n;

	psi_track_host(pt);
	for (size_t i = 0; i < n; i++) {
		if (!r->rows[i].why)
			continue; /* report_why ran out of memory before it */
		struct why_psi *p = &r->rows[i].why->psi;
		if (!r->rows[i].members && psi_cg_ns(pt, &s->fs, r->rows[i].id, summary, &p->some_ns, &p->host))
			p->ok = true;
		else if ((p->ok = psi_host_ns(pt, summary, &p->some_ns)))
			p->host = true;
	}
}

static void show(const struct top_opts *o, struct session *s, struct kstat_src *ks, struct psi_track *pt,
		 struct tl_rec *tl,
		 const struct snapshot *prev, const struct snapshot *cur, bool summary,
		 struct refresh_cost *cost)
{
	struct snapshot d, gd = {};
	struct groups gs = {};
	struct report r;
	uint64_t from = prev->t_ns, c0;

	struct idtab kfigs = IDTAB_INIT(struct kstat_fig);
	int err = snapshot_delta(prev, cur, &d);
	/* --group-by: the rows are the groups' sums (and the cgroups of none). */
	const struct snapshot *rd = o->group == GROUP_PATH ? &d : &gd;

	if (!err && o->group != GROUP_PATH)
		err = groups_make(&gs, o->group, &d, &s->fs, &gd);
	c0 = cpu_ns();
	/* No kernel figures this time, rather than stale ones, when the pass fails. */
	if (!err && !kstat_src_refresh(ks))
		err = kstat_src_figures(ks, rd, summary, &kfigs);
	cost->kernel_ns = cpu_ns() - c0;
	if (err || report_build(&r, rd, cur->t_ns - from, false, &kfigs)) {
		cgs_err("out of memory building the report");
		idtab_free(&kfigs);
		groups_free(&gs);
		snapshot_free(&gd);
		snapshot_free(&d);
		return;
	}
	if (o->c.so.why && report_why(&r))
		cgs_err("out of memory splitting the waits");
	if (o->group != GROUP_PATH)
		groups_label(&gs, &r);
	struct task_report tr = {};
	if (o->c.tasks && task_report_build(&tr, &d, r.interval_ns, false, o->c.threads, &s->fs, o->sort))
		cgs_err("out of memory building the per-task rows");
	report_sort(&r, &s->fs, o->sort, o->json || summary ? 0 : o->rows);
	report_resolve(&r, &s->fs, o->json || summary ? 0 : o->rows);
	if (o->c.so.why)
		why_psi(&r, s, pt, summary, o->json || summary ? 0 : o->rows);
	/* The interval's counters in the timeline (its events come through the tracer's tap). */
	if (tl && !summary)
		tl_rec_rows(tl, &r, cur->t_ns);
	if (o->json) {
		struct json_meta m;
		struct episode_log el;
		session_json_meta(s, summary ? "summary" : "interval", &m);
		/* Episodes that ended since the last table (the summary lists the last ones). */
		tracer_take_episodes(&s->tr, &el);
		m.ep = (struct episode_view){ el.e, el.n, el.truncated, s->tr.attached_ns,
					      session_cgroup_name, s };
		struct json_object *j = json_report(&r, &m);
		if (o->c.tasks)
			JADD(j, "tasks", json_tasks(&tr, false));
		json_emit(stdout, j);
		free(el.e);
	} else {
		char when[16], dur[16];
		time_t t = time(NULL);
		strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
		if (summary)
			printf("\nSummary over %s since start\n", fmt_duration(dur, sizeof(dur), r.interval_ns));
		else
			printf("%s  interval %s\n", when, fmt_duration(dur, sizeof(dur), r.interval_ns));
		if (r.group_by)
			printf("by %s: %zu group%s of %zu cgroup%s, %zu cgroup%s in none\n", r.group_by, gs.n,
			       gs.n == 1 ? "" : "s", gs.nm, gs.nm == 1 ? "" : "s", r.n - gs.n,
			       r.n - gs.n == 1 ? "" : "s");
		if (o->c.tasks)
			task_table(stdout, &tr, summary ? 0 : o->rows);
		else
			report_table(stdout, &r, summary ? 0 : o->rows);
		if (summary && !o->c.tasks)
			report_throttle_lines(stdout, &r);
		if (summary && !o->c.tasks)
			report_why_lines(stdout, &r);
		if (summary || drops_total(d.drops))
			report_drops(stdout, d.drops);
		if (!summary)
			putchar('\n');
		fflush(stdout);
	}
	task_report_free(&tr);
	report_free(&r);
	idtab_free(&kfigs);
	groups_free(&gs);
	snapshot_free(&gd);
	snapshot_free(&d);
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {};
	struct session s;
	struct snapshot prev = {}, cur;
	struct kstat_src ks = {};
	struct psi_track pt = {};
	struct tl_rec tl, *tlp = NULL;
	int err = parse(&o, argc, argv);

	if (err)
		return err;
	/* The trace's file first: a bad path costs no tracing. */
	if (o.c.timeline && (err = tl_rec_open(&tl, o.c.timeline)))
		return err;
	if (o.c.timeline)
		tlp = &tl;
	if ((err = session_open(&s, &o.c.so))) {
		session_close(&s);
		if (tlp)
			tl_rec_close(tlp, false);
		return err;
	}
	if (tlp)
		tl_rec_attach(tlp, &s);
	kstat_src_open(&ks, &s.fs, KSTAT_AUTO);
	kstat_src_prime(&ks);
	if (o.c.so.why) /* the start of the summary's window */
		psi_track_start(&pt, &s.fs, (const char *const *)s.filter_paths, s.nfilter);
	char desc[512];
	session_describe(&s, desc, sizeof(desc));
	if (!o.quiet)
		fprintf(stderr, "cgsched: tracing %d CPUs, %s; Ctrl-C to stop\n", s.tr.ncpus, desc);
	if (!o.json)
		printf("%s\n\n", desc);
	bool have_prev = false;
	uint64_t deadline = s.tr.attached_ns;
	for (uint64_t n = 0; !o.count || n < o.count; n++) {
		deadline += o.interval_ns;
		if (!session_sleep_until(&s, deadline))
			break;
		/* One refresh: maps read, paths resolved, kernel figures, output. */
		struct refresh_cost rc;
		uint64_t c0 = cpu_ns(), w0 = now_ns();
		if ((err = snapshot_read(&s.tr, &cur, false, have_prev ? &prev : &s.base))) {
			cgs_err("reading the BPF maps failed: %s", strerror(-err));
			break;
		}
		rc.maps_ns = cpu_ns() - c0;
		show(&o, &s, &ks, &pt, tlp, have_prev ? &prev : &s.base, &cur, false, &rc);
		rc.rest_ns = cpu_ns() - c0 - rc.maps_ns - rc.kernel_ns;
		if (cgs_verbose)
			cgs_debug("refresh: %.2f ms CPU, %.2f ms wall, %zu cgroups; CPU: maps %.2f, kernel figures %.2f, "
				  "report %.2f ms", (cpu_ns() - c0) / 1e6, (now_ns() - w0) / 1e6, cur.n,
				  rc.maps_ns / 1e6, rc.kernel_ns / 1e6, rc.rest_ns / 1e6);
		snapshot_free(&prev);
		prev = cur;
		have_prev = true;
	}
	if (!snapshot_read(&s.tr, &cur, false, have_prev ? &prev : &s.base)) {
		struct refresh_cost rc;
		show(&o, &s, &ks, &pt, tlp, &s.base, &cur, true, &rc);
		snapshot_free(&cur);
	}
	snapshot_free(&prev);
	kstat_src_close(&ks);
	psi_track_free(&pt);
	int tlerr = tlp ? tl_rec_close(tlp, true) : 0;
	session_close(&s);
	return err || tlerr ? CGS_EXIT_FAIL : 0;
}
