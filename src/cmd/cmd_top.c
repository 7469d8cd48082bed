// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched top: a table per interval, one row per cgroup active in it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "figures/kstat_src.h"
#include "kernel/psi.h"
#include "lib/util.h"
#include "report/json_out.h"
#include "session/demand_top.h"
#include "session/refresh.h"
#include "session/timeline_rec.h"
#include "ui/screen.h"

static const char usage[] =
	"Usage: cgsched [top] [OPTIONS]\n"
	"Print a table every interval, one row per cgroup of the cpu controller that\n"
	"ran or waited in it. The columns: CPU% (100 = one CPU); run-queue latency\n"
	"p50, p99 and max; wake-ups; voluntary and involuntary switches; throttling\n"
	"by the cgroup's own quota (THR% of the interval, episodes, p99 length);\n"
	"QUOTA%, the share of its quota used; and notes. A note names the cgroup\n"
	"whose tasks preempted it most, or an ancestor whose quota held it.\n"
	"\n"
	"  -i, --interval DUR     time between tables: seconds, or 500ms, 2s (default 1s)\n"
	"  -n, --count N          stop after N intervals (default: run until Ctrl-C)\n"
	"  -s, --sort KEY         cpu (default), p50, p99, max, wakeups, vol, invol, thr\n"
	"                         or path\n"
	"  -r, --rows N           show the first N rows (default 20, 0 = all)\n"
	"  -b, --batch            print the tables one after another, also on a terminal.\n"
	"                         Without it, top draws one screen in place on a\n"
	"                         terminal. Its keys: < > c l m w t n sort, / filters,\n"
	"                         Left and Right fold the tree, Enter shows a cgroup's\n"
	"                         detail, T shows tasks, ? help, q quits\n"
	"      --mark-p99 DUR     on the screen, show in yellow the rows whose run-queue\n"
	"                         p99 is over DUR, e.g. 5ms (throttled rows are red)\n"
	"      --cgroup PATH      only this cgroup and its descendants (repeatable)\n"
	"      --group-by KEY     one summed row per unit, container or pod, or one row\n"
	"                         per path (default). The WHO column says whose a\n"
	"                         cgroup is\n"
	"      --tasks            one row per process instead (with --cgroup: the\n"
	"                         processes inside it)\n"
	"      --threads          with --tasks: one row per thread\n"
	"      --why              split each cgroup's waits into causes: its quota, a\n"
	"                         parent's, another cgroup, and more. The summary gets a\n"
	"                         verdict line per cgroup\n"
	TIMELINE_HELP
	"      --max-tasks N      size of the per-task map (default 4096). Tasks beyond\n"
	"                         it are counted as drops (tasks_full)\n"
	"      --json             one JSON object per interval (docs/json.md)\n"
	"      --demand           with --json: the CPU demand of each limited cgroup per\n"
	"                         period of its quota (p50, p90, p99, max). It reads the\n"
	"                         maps every 10 ms\n"
	"      --max-cgroups N    size of the per-cgroup map (default 1024)\n"
	"      --sched-backend B  scheduler backend: tp_btf, tp_btf-pidhash or raw_tp\n"
	"                         (default: the first that works)\n"
	"      --throttle-backend B\n"
	"                         fentry, kprobe or tracepoint (default: the first that\n"
	"                         works). --backend is its old name\n"
	PRIORITY_HELP
	"  -q, --quiet            no start-up line on stderr\n"
	"  -v, --verbose          print libbpf's messages, the backend probing, and the\n"
	"                         CPU time of each refresh (maps, kernel figures,\n"
	"                         report) on stderr\n"
	"\n"
	"Ctrl-C (SIGINT), SIGTERM or the end of -n prints a summary since the start.\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched                            # a table every second\n"
	"  cgsched top -i 5 -s p99 -r 10      # the ten worst run-queue tails, every 5 s\n"
	"  cgsched top --cgroup /kubepods --json -n 1\n"
	"  cgsched top --group-by pod -s p99  # pods by run-queue tail\n";

struct top_opts {
	struct common_opts c;
	uint64_t interval_ns;
	uint64_t count;
	uint64_t rows;
	enum sort_key sort;
	enum group_by group;
	uint64_t mark_p99_ns;
	bool json, quiet, batch, demand;
};

static int top_opt(void *ctx, int c, const char *arg)
{
	struct top_opts *o = ctx;

	switch (c) {
	case 'i':
		return opt_duration("-i", arg, 1000000000ULL, 10000000ULL, 3600000000000ULL,
				    "from 10ms to 1h (e.g. 1, 500ms, 2s)", &o->interval_ns);
	case 'n':
		if (parse_u64(arg, 1, UINT32_MAX, &o->count)) {
			cgs_err("-n %s: expected a whole number of intervals, at least 1", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case 's':
		if (sort_key_parse(arg, &o->sort)) {
			cgs_err("-s %s: sort by cpu, p50, p99, max, wakeups, vol, invol, thr or path", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case 'r':
		if (parse_u64(arg, 0, UINT32_MAX, &o->rows)) {
			cgs_err("-r %s: expected a whole number of rows (0 = all)", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case OPT_JSON:
		o->json = true;
		return OPT_TAKEN;
	case OPT_DEMAND:
		o->demand = true;
		return OPT_TAKEN;
	case OPT_GROUP_BY:
		if (group_by_parse(arg, &o->group)) {
			cgs_err("--group-by %s: group by unit, container, pod or path", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case OPT_MARK_P99:
		return opt_duration("--mark-p99", arg, 1000ULL, 1000ULL, 3600000000000ULL,
				    "from 1us to 1h (e.g. 500us, 5ms; a bare number is us)", &o->mark_p99_ns);
	case 'q':
		o->quiet = true;
		return OPT_TAKEN;
	case 'b':
		o->batch = true;
		return OPT_TAKEN;
	}
	return OPT_NOT_MINE;
}

static int parse(struct top_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "rows", required_argument, NULL, 'r' },
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "demand", no_argument, NULL, OPT_DEMAND },
		{ "group-by", required_argument, NULL, OPT_GROUP_BY },
		{ "mark-p99", required_argument, NULL, OPT_MARK_P99 },
		TASKS_LONG_OPTS("tasks"),
		WHY_LONG_OPT,
		TIMELINE_LONG_OPTS,
		{ "quiet", no_argument, NULL, 'q' },
		COMMON_LONG_OPTS,
		{},
	};
	const struct cmd_spec spec = {
		.name = "top",
		.usage = usage,
		.shorts = "i:n:s:r:bqvh",
		.longs = longs,
		.opt = top_opt,
		.ctx = o,
		.common = &o->c,
		.nargs = 0,
	};
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
	if (!err && o->demand && !o->json) {
		cgs_err("--demand is for --json: its figures are per interval in the JSON rows");
		return CGS_EXIT_USAGE;
	}
	if (!err && o->demand && o->group != GROUP_PATH) {
		cgs_err("--demand with --group-by: a quota is a cgroup's, not a group's; choose one");
		return CGS_EXIT_USAGE;
	}
	if (!err && o->c.tasks && o->group != GROUP_PATH) {
		cgs_err("--tasks with --group-by: choose one (rows per task, or per group)");
		return CGS_EXIT_USAGE;
	}
	return err;
}

/* CPU time of a refresh's parts, for -v: where 10,000 cgroups' time goes. */
struct refresh_cost {
	uint64_t maps_ns, kernel_ns;
};

/* -v: a refresh's CPU from c0 (cpu_ns) and wall from w0, by parts (make bench reads these lines). */
static void say_cost(uint64_t c0, uint64_t w0, size_t ncg, const struct refresh_cost *rc)
{
	uint64_t cpu = cpu_ns() - c0;

	if (cgs_verbose)
		cgs_debug("refresh: %.2f ms CPU, %.2f ms wall, %zu cgroups; CPU: maps %.2f, kernel figures %.2f, "
			  "report %.2f ms", cpu / 1e6, (now_ns() - w0) / 1e6, ncg, rc->maps_ns / 1e6,
			  rc->kernel_ns / 1e6, (cpu - rc->maps_ns - rc->kernel_ns) / 1e6);
}

static void print_json(const struct top_opts *o, struct session *s, struct refresh *f, bool summary)
{
	struct json_meta m;
	struct episode_log el;

	session_json_meta(s, summary ? "summary" : "interval", &m);
	/* Episodes that ended since the last table (the summary lists the last ones). */
	tracer_take_episodes(&s->tr, &el);
	/*
	 * Period by period from the interval's episodes (a summary's window
	 * began before the episodes left, which the intervals took: none).
	 */
	if (!summary && !el.truncated && report_periods(&f->r, el.e, el.n))
		cgs_err("period by period: out of memory");
	m.ep = (struct episode_view){ el.e, el.n, el.truncated, s->tr.attached_ns, session_cgroup_name, s };
	json_report(stdout, &f->r, &m, o->c.tasks ? &f->tr : NULL);
	free(el.e);
}

static void print_table(const struct top_opts *o, struct session *s, const struct refresh *f, bool summary)
{
	const struct report *r = &f->r;
	const struct groups *gs = &f->gs;
	char when[16], dur[16];
	time_t t = time(NULL);

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	if (summary)
		printf("\nSummary over %s since start\n", fmt_duration(dur, sizeof(dur), r->interval_ns));
	else
		printf("%s  interval %s\n", when, fmt_duration(dur, sizeof(dur), r->interval_ns));
	if (r->group_by)
		printf("by %s: %zu group%s of %zu cgroup%s, %zu cgroup%s in none\n", r->group_by, gs->n,
		       gs->n == 1 ? "" : "s", gs->nm, gs->nm == 1 ? "" : "s", r->n - gs->n,
		       r->n - gs->n == 1 ? "" : "s");
	if (o->c.tasks)
		task_table(stdout, &f->tr, summary ? 0 : o->rows);
	else
		report_table(stdout, r, summary ? 0 : o->rows);
	if (summary && !o->c.tasks) {
		/* The tables take no episodes: the log holds them since start (unless it overflowed). */
		struct episode_log el;
		tracer_take_episodes(&s->tr, &el);
		if (!el.truncated && report_periods((struct report *)r, el.e, el.n))
			cgs_err("period by period: out of memory");
		free(el.e);
		report_throttle_lines(stdout, r);
		report_why_lines(stdout, r);
	}
	if (summary || drops_total(f->d.drops))
		report_drops(stdout, f->d.drops);
	if (!summary)
		putchar('\n');
	fflush(stdout);
}

/* f: the refresh kept from one interval to the next (its arrays reused: refresh_remake). */
static void show(const struct top_opts *o, struct session *s, struct kstat_src *ks, struct psi_track *pt,
		 struct tl_rec *tl, struct demand_top *dt, const struct snapshot *prev, const struct snapshot *cur,
		 bool summary, struct refresh *f, struct refresh_cost *cost)
{
	/* JSON and the summary have every row; a table only its first. */
	const struct refresh_opts ro = {
		.group = o->group, .ks = ks, .since_first = summary,
		.why = o->c.so.tc.why, .psi = pt,
		.tasks = o->c.tasks, .threads = o->c.threads,
		.sort = true, .key = o->sort, .shown = o->json || summary ? 0 : o->rows,
	};

	if (!refresh_remake(f, s, &ro, prev, cur)) {
		/* --demand: the interval's periods into its rows; the cgroups limited now read from here on. */
		if (dt && !summary)
			demand_top_interval(dt, &f->r);
		/* The interval's counters in the timeline (its events come through the tracer's tap). */
		if (tl && !summary)
			tl_rec_rows(tl, &f->r, cur->t_ns);
		if (o->json)
			print_json(o, s, f, summary);
		else
			print_table(o, s, f, summary);
	}
	cost->kernel_ns = f->kernel_ns;
}

/*
 * The screen's refresh (screen.h): every row's path resolved (the filter
 * and the sort by name need them), sorted as the keys say, and kept, so
 * that a key draws the same rows again at once.
 */
static void screen_refresh(const struct top_opts *o, struct session *s, struct kstat_src *ks, struct tl_rec *tl,
			   const struct snapshot *prev, const struct snapshot *cur, struct refresh *f, bool *have,
			   const struct screen_view *v)
{
	const struct refresh_opts ro = {
		.group = v->group, .ks = ks, .why = o->c.so.tc.why,
		.tasks = true, .threads = o->c.threads,
		.sort = true, .key = v->sort, .shown = 0,
	};

	if (!(*have = !refresh_remake(f, s, &ro, prev, cur)))
		return;
	if (tl)
		tl_rec_rows(tl, &f->r, cur->t_ns);
	screen_record(&f->r);
}

/*
 * top on a terminal: one screen, redrawn each interval and at each key.
 * Tracing and the intervals go on while paused; the screen keeps the
 * rows it shows. 0, or -1 when the terminal could not be taken (the
 * caller prints lines instead).
 */
static int screen_loop(const struct top_opts *o, struct session *s, struct kstat_src *ks, struct tl_rec *tl,
		       const char *desc, struct snapshot *prev, bool *have_prev)
{
	struct screen_view v = { .sort = o->sort, .group = o->group, .tasks = o->c.tasks,
				 .mark_p99_ns = o->mark_p99_ns };
	/* .drops: since start, as of the rows shown */
	struct screen_head h = { .desc = desc, .ncpus = s->tr.ncpus, .interval_ns = o->interval_ns };
	struct refresh f = {};
	struct snapshot cur = {};
	bool have = false;
	uint64_t deadline = s->tr.attached_ns + o->interval_ns;
	/* Whose tasks the maps record (screen_tasks_wanted), since when (monotonic ns). */
	uint64_t following = 0, follow_ns = 0;
	uint64_t waits = 0; /* the rows' run-queue waits since start, the measure of drops_notable */
	int err = 0;

	if (screen_open(&v))
		return -1;
	/*
	 * Keys typed before the screen opened (the terminal keeps them): in its
	 * first frame. The loop below reads keys only while a refresh is not
	 * yet due. Where the start takes longer than an interval, the first
	 * frame would come before them: a T typed at start would turn the rows
	 * into tasks only a frame later.
	 */
	screen_keys(&v);
	v.resort = false; /* no rows yet: the first refresh sorts them as asked */
	for (uint64_t n = 0; !v.quit && (!o->count || n < o->count);) {
		/* A detail opened, or task rows asked for: their tasks recorded from now (the last interval's are not). */
		uint64_t want = screen_tasks_wanted(&v);
		if (want != following) {
			tracer_tasks_follow(&s->tr, want);
			following = want;
			follow_ns = now_ns();
			h.tasks_partial = true;
			if (have)
				screen_draw(&h, &f.r, &v);
		}
		int w = session_wait_input(s, deadline, STDIN_FILENO);
		if (w < 0)
			break;
		if (w > 0) {
			if (screen_keys(&v) && have && !v.quit) {
				if (v.resort) {
					report_sort(&f.r, &s->fs, v.sort, 0);
					task_report_sort(&f.tr, v.sort);
				}
				v.resort = false;
				if (screen_tasks_wanted(&v) == following)
					screen_draw(&h, &f.r, &v);
			}
			if (v.quit)
				break;
			continue;
		}
		deadline += o->interval_ns;
		n++;
		uint64_t c0 = cpu_ns(), w0 = now_ns();
		struct refresh_cost rc = {};
		if ((err = snapshot_take(&s->tr, &cur, &(struct snapshot_how){ .prev = *have_prev ? prev : &s->base }))) {
			screen_close();
			cgs_err("reading the BPF maps failed: %s", strerror(-err));
			break;
		}
		rc.maps_ns = cpu_ns() - c0;
		if (!v.paused) {
			screen_refresh(o, s, ks, tl, *have_prev ? prev : &s->base, &cur, &f, &have, &v);
			/* The maps' counts: since attach; notable against the waits seen since. */
			uint64_t nd[CGS_DROP__COUNT];
			for (size_t i = 0; have && i < f.r.n; i++)
				waits += f.r.rows[i].s->c.runq_count;
			h.drops = drops_total(cur.drops);
			h.drops_notable = drops_notable(cur.drops, waits, nd) != 0;
			/* The tasks' figures are the interval's when recorded since before its start. */
			h.tasks = have && following ? &f.tr : NULL;
			h.tasks_partial = follow_ns > (*have_prev ? prev : &s->base)->t_ns;
			if (have) {
				rc.kernel_ns = f.kernel_ns;
				screen_draw(&h, &f.r, &v);
			}
			/* -v on the screen: only where stderr is not the screen (make bench sends it to a file). */
			if (!isatty(STDERR_FILENO))
				say_cost(c0, w0, cur.n, &rc);
		}
		snapshot_swap(prev, &cur);
		*have_prev = true;
	}
	screen_close();
	refresh_free(&f);
	snapshot_free(&cur);
	return err ? -2 : 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {};
	struct session s;
	struct snapshot prev = {}, cur = {};
	struct refresh f = {};
	struct kstat_src ks = {};
	struct psi_track pt = {};
	struct tl_rec tl, *tlp = NULL;
	struct demand_top dt;
	bool opened = false;
	int ret, err = parse(&o, argc, argv);

	if (err)
		return err;
	/*
	 * --json of every row is megabytes an interval (7.5 MB for 10,000
	 * cgroups): written in 1 MB blocks, not stdio's 4 KB ones (each
	 * interval ends with fflush). A terminal keeps its line buffering.
	 */
	static char obuf[1 << 20];
	if (o.json && !isatty(STDOUT_FILENO))
		setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	/* The trace's file first: a bad path costs no tracing. */
	if (o.c.timeline && (err = tl_rec_open(&tl, o.c.timeline)))
		return err;
	if (o.c.timeline)
		tlp = &tl;
	/*
	 * The screen's detail shows a cgroup's tasks, T every task's: the
	 * per-task figures of the one shown (tracer_tasks_follow), recorded
	 * from when they are asked for. The map's entries are allocated as
	 * used; where the kernel preallocates them for every possible CPU
	 * (before 6.1), a smaller bound unless --tasks asked for one.
	 */
	if (screen_wanted(o.batch, o.json)) {
		o.c.so.tc.tasks = o.c.threads ? CGS_TASKS_THREAD : CGS_TASKS_PROCESS;
		o.c.so.tc.tasks_one = true;
		if (!o.c.tasks && tracer_maps_preallocated() && o.c.so.tc.max_task_rows > 256)
			o.c.so.tc.max_task_rows = 256;
	}
	if ((ret = session_open(&s, &o.c.so)))
		goto out;
	opened = true;
	if (tlp)
		tl_rec_attach(tlp, &s);
	if (o.demand) {
		demand_top_start(&dt, &s);
		demand_top_discover(&dt);
		s.tick = demand_top_tick;
		s.tick_ctx = &dt;
	}
	kstat_src_open(&ks, &s.fs, KSTAT_AUTO);
	kstat_src_prime(&ks);
	if (o.c.so.tc.why) /* the start of the summary's window */
		psi_track_start(&pt, &s.fs, (const char *const *)s.filter_paths, s.nfilter);
	char desc[512];
	session_describe(&s, desc, sizeof(desc));
	if (!o.quiet)
		fprintf(stderr, "cgsched: tracing %d CPUs, %s; Ctrl-C to stop\n", s.tr.ncpus, desc);
	bool have_prev = false;
	/* A terminal gets one screen (ui/screen.h); anything else, or --batch, the tables one after another. */
	bool screen = screen_wanted(o.batch, o.json);
	int sl = screen ? screen_loop(&o, &s, &ks, tlp, desc, &prev, &have_prev) : -1;
	if (sl == -2)
		err = CGS_EXIT_FAIL;
	if (!o.json && sl == -1)
		printf("%s\n\n", desc);
	uint64_t deadline = s.tr.attached_ns;
	for (uint64_t n = 0; sl == -1 && (!o.count || n < o.count); n++) {
		deadline += o.interval_ns;
		if (!session_sleep_until(&s, deadline))
			break;
		/* One refresh: maps read, paths resolved, kernel figures, output. */
		struct refresh_cost rc;
		uint64_t c0 = cpu_ns(), w0 = now_ns();
		if ((err = snapshot_take(&s.tr, &cur, &(struct snapshot_how){ .prev = have_prev ? &prev : &s.base }))) {
			cgs_err("reading the BPF maps failed: %s", strerror(-err));
			break;
		}
		rc.maps_ns = cpu_ns() - c0;
		show(&o, &s, &ks, &pt, tlp, o.demand ? &dt : NULL, have_prev ? &prev : &s.base, &cur, false, &f, &rc);
		say_cost(c0, w0, cur.n, &rc);
		snapshot_swap(&prev, &cur);
		have_prev = true;
	}
	if (!snapshot_take(&s.tr, &cur, &(struct snapshot_how){ .prev = have_prev ? &prev : &s.base })) {
		struct refresh_cost rc;
		show(&o, &s, &ks, &pt, tlp, NULL, &s.base, &cur, true, &f, &rc);
	}
	refresh_free(&f);
	snapshot_free(&cur);
	snapshot_free(&prev);
	if (o.demand) {
		s.tick = NULL;
		demand_top_free(&dt);
	}
	kstat_src_close(&ks);
	psi_track_free(&pt);
	ret = err ? CGS_EXIT_FAIL : 0;
out:
	/* The trace is kept only if tracing began. */
	if (tlp && tl_rec_close(tlp, opened) && opened)
		ret = CGS_EXIT_FAIL;
	if (opened)
		session_close(&s);
	return ret;
}
