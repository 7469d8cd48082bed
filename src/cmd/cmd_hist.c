// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched hist: run-queue latency histograms per cgroup, in runqlat's layout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/commands.h"
#include "report/hist.h"
#include "report/json_out.h"
#include "report/report.h"
#include "report/tasks_out.h"
#include "session/refresh.h"
#include "lib/cgname.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched hist [OPTIONS]\n"
	"Trace until Ctrl-C, or for -d seconds. Then print one log2 histogram per\n"
	"cgroup, in the layout of bcc's runqlat. It shows run-queue latency (the\n"
	"default), the lengths of throttle episodes, or the lengths of on-CPU slices.\n"
	"\n"
	"  -d, --duration DUR     trace this long: seconds, or 500ms, 2m (default: until\n"
	"                         Ctrl-C)\n"
	"      --cgroup PATH      only this cgroup and its descendants (repeatable)\n"
	"      --metric M         runq (default), throttle or oncpu\n"
	"      --per-cpu          one histogram per cgroup and CPU\n"
	"      --per-task         one run-queue histogram per process and cgroup\n"
	"      --threads          with --per-task: one per thread\n"
	"      --max-tasks N      size of the per-task map (default 4096). Tasks beyond\n"
	"                         it are counted as drops\n"
	"  -m, --milliseconds     histogram in ms instead of us\n"
	"      --json             the summary as JSON (docs/json.md)\n"
	"      --max-cgroups N    size of the per-cgroup map (default 1024)\n"
	"      --sched-backend B  scheduler backend: tp_btf, tp_btf-pidhash or raw_tp\n"
	"                         (default: the first that works)\n"
	"      --throttle-backend B\n"
	"                         fentry, kprobe or tracepoint (default: the first that\n"
	"                         works). --backend is its old name\n"
	PRIORITY_HELP
	"  -q, --quiet            no start-up line on stderr\n"
	"  -v, --verbose          libbpf's messages on stderr\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched hist -d 10                         # ten seconds, every cgroup\n"
	"  cgsched hist --cgroup /system.slice -m     # one subtree, in milliseconds\n"
	"  cgsched hist --cgroup /web --per-task -d 5 # each process of one cgroup\n";

struct hist_opts {
	struct common_opts c;
	uint64_t duration_ns;
	enum metric metric;
	bool per_cpu, json, quiet;
};

static int hist_opt(void *ctx, int c, const char *arg)
{
	struct hist_opts *o = ctx;

	switch (c) {
	case 'd':
		return opt_duration("-d", arg, 1000000000ULL, 1000000ULL, 86400000000000ULL,
				    "from 1ms to 24h (e.g. 10, 500ms, 2m)", &o->duration_ns);
	case OPT_PER_CPU:
		o->per_cpu = o->c.so.tc.per_cpu = true;
		return OPT_TAKEN;
	case OPT_METRIC:
		if (!strcmp(arg, "runq"))
			o->metric = METRIC_RUNQ;
		else if (!strcmp(arg, "throttle"))
			o->metric = METRIC_THROTTLE;
		else if (!strcmp(arg, "oncpu"))
			o->metric = METRIC_ONCPU;
		else {
			cgs_err("--metric %s: expected runq, throttle or oncpu", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case 'm':
		o->c.so.tc.hist_ms = true;
		return OPT_TAKEN;
	case OPT_JSON:
		o->json = true;
		return OPT_TAKEN;
	case 'q':
		o->quiet = true;
		return OPT_TAKEN;
	}
	return OPT_NOT_MINE;
}

static int parse(struct hist_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
		TASKS_LONG_OPTS("per-task"),
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "milliseconds", no_argument, NULL, 'm' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		COMMON_LONG_OPTS,
		{},
	};
	const struct cmd_spec spec = {
		.name = "hist",
		.usage = usage,
		.shorts = "d:mqvh",
		.longs = longs,
		.opt = hist_opt,
		.ctx = o,
		.common = &o->c,
		.nargs = 0,
	};
	int first;

	common_init(&o->c);
	int err = cmd_parse(&spec, argc, argv, &first);
	if (!err)
		err = common_tasks_finish(&o->c, "--per-task");
	if (!err && o->c.tasks && (o->metric != METRIC_RUNQ || o->per_cpu)) {
		cgs_err("--per-task: run-queue latency only, all CPUs together (no --metric %s, no --per-cpu)",
			o->metric == METRIC_ONCPU ? "oncpu" : o->metric == METRIC_THROTTLE ? "throttle" : "runq");
		return CGS_EXIT_USAGE;
	}
	return err;
}

/* " (pod <uid>/<id12>)" after a heading's path, or "". */
static const char *who_note(const struct row *w, char *buf, size_t len)
{
	char t[4 * CGNAME_SHORT_MAX];

	if (!row_who(w, t, sizeof(t)))
		return "";
	snprintf(buf, len, " (%s)", t);
	return buf;
}

static void print_hists(const struct hist_opts *o, const struct report *r, int ncpus)
{
	const char *unit = o->c.so.tc.hist_ms ? "msecs" : "usecs";
	char name[PATH_MAX + 32], who[4 * CGNAME_SHORT_MAX + 4];

	for (size_t i = 0; i < r->n; i++) {
		const struct row *w = &r->rows[i];
		const uint64_t *all = sample_slots(w->s, o->metric);
		if (!hist_total(all, CGS_HIST_SLOTS))
			continue;
		if (!o->per_cpu) {
			printf("\ncgroup = %s%s\n", row_name(w, name, sizeof(name)), who_note(w, who, sizeof(who)));
			hist_print(stdout, all, CGS_HIST_SLOTS, unit);
			continue;
		}
		for (int cpu = 0; cpu < ncpus; cpu++) {
			const uint64_t *slots = w->s->cpu[cpu].slots[o->metric];
			if (!hist_total(slots, CGS_HIST_SLOTS))
				continue;
			printf("\ncgroup = %s%s, cpu = %d\n", row_name(w, name, sizeof(name)),
			       who_note(w, who, sizeof(who)), cpu);
			hist_print(stdout, slots, CGS_HIST_SLOTS, unit);
		}
	}
}

/* runqlat -P's layout: a heading per process (or thread), then its histogram. */
static void print_task_hists(const struct task_report *tr, const char *unit)
{
	char comm[64], esc[4 * PATH_MAX];

	for (size_t i = 0; i < tr->n; i++) {
		const struct task_sample *t = tr->rows[i].t;
		if (!t->runq_count)
			continue;
		if (tr->threads)
			printf("\ntid = %u, pid = %u", t->id, t->tgid);
		else
			printf("\npid = %u", t->id);
		printf(" (%s), cgroup = %s\n", text_escape(t->comm, comm, sizeof(comm)),
		       tr->rows[i].path ? text_escape(tr->rows[i].path, esc, sizeof(esc)) : "(removed)");
		hist_print(stdout, t->runq_slots, CGS_HIST_SLOTS, unit);
	}
}

int cmd_hist(int argc, char **argv)
{
	struct hist_opts o = {};
	struct session s;
	struct snapshot cur = { 0 };
	struct refresh f = { 0 };
	struct refresh_opts ro;
	int err = parse(&o, argc, argv);

	if (err)
		return err;
	if ((err = session_open(&s, &o.c.so)))
		return err;
	if (!o.quiet) {
		char desc[512];
		fprintf(stderr, "cgsched: tracing %d CPUs, %s; %s\n", s.tr.ncpus, session_describe(&s, desc, sizeof(desc)),
			o.duration_ns ? "for the given duration" : "Ctrl-C to stop");
	}
	session_sleep_until(&s, o.duration_ns ? s.tr.attached_ns + o.duration_ns : UINT64_MAX);
	if ((err = snapshot_take(&s.tr, &cur, &(struct snapshot_how){ .per_cpu = o.per_cpu, .prev = &s.base }))) {
		cgs_err("reading the BPF maps failed: %s", strerror(-err));
		err = CGS_EXIT_FAIL;
		goto out;
	}
	err = CGS_EXIT_FAIL;
	/* Detach first: printing thousands of histograms must not be traced. */
	tracer_stop(&s.tr);
	ro = (struct refresh_opts){ .hist_ms = o.c.so.tc.hist_ms, .tasks = o.c.tasks, .threads = o.c.threads,
				    .sort = true, .key = SORT_PATH };
	if (refresh_make(&f, &s, &ro, &s.base, &cur))
		goto out;
	if (o.json) {
		struct json_meta m;
		session_json_meta(&s, "summary", &m);
		json_report(stdout, &f.r, &m, o.c.tasks ? &f.tr : NULL);
	} else {
		if (o.c.tasks)
			print_task_hists(&f.tr, o.c.so.tc.hist_ms ? "msecs" : "usecs");
		else
			print_hists(&o, &f.r, s.tr.ncpus);
		putchar('\n');
		report_drops(stdout, f.d.drops);
	}
	err = 0;
out:
	refresh_free(&f);
	snapshot_free(&cur);
	session_close(&s);
	return err;
}
