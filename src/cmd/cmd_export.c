// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched export: a daemon serving every cgroup's figures to Prometheus (docs/metrics.md). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "exporter/exporter.h"
#include "session/demand_all.h"
#include "lib/stop.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched export [OPTIONS]\n"
	"Serve every cgroup's scheduler figures on /metrics for Prometheus, until\n"
	"SIGTERM or Ctrl-C. The format is Prometheus text or OpenMetrics, as the\n"
	"scraper's Accept header asks. The figures: on-CPU time, switches, wake-ups,\n"
	"histograms of run-queue latency and throttle episodes, throttled time, wait\n"
	"causes, top preemptors, and the kernel's cpu.stat figures and limits. Names\n"
	"(units, containers, pods) are on cgsched_cgroup_info. cgsched's own drops\n"
	"and costs are there too. docs/metrics.md lists every metric.\n"
	"\n"
	EXPORT_OPTS_HELP
	"      --why              also name the other cgroups that a cgroup waited\n"
	"                         behind, and export the waiting time. It makes the\n"
	"                         scheduler path cost more (docs/performance.md)\n"
	"      --causes           also split the waits by what ran: the cgroup itself,\n"
	"                         others, kernel threads, real-time tasks, idle. It\n"
	"                         costs less than --why. The quota causes are always\n"
	"                         there\n"
	"      --no-causes        without that split (the default)\n"
	"      --advise-target PCT\n"
	"                         the share of periods the advised quota may leave\n"
	"                         throttled (default 1)\n"
	"      --advise-window DUR\n"
	"                         how far back the advice looks (default 1h; at most\n"
	"                         36,000 periods)\n"
	"      --no-demand        keep no demand per period, and advise nothing. It\n"
	"                         makes the scheduler path cost less\n"
	"      --cgroup PATH      only this cgroup and its descendants (repeatable)\n"
	"      --max-cgroups N    size of the per-cgroup map (default 1024)\n"
	"      --sched-backend B, --throttle-backend B\n"
	"                         as for top\n"
	"      --priority P       as for top. It covers the HTTP thread too, so scrapes\n"
	"                         are answered under load\n"
	"  -q, --quiet            no start-up line on stderr\n"
	"  -v, --verbose          libbpf's messages and debug lines on stderr\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched export                  # serves http://127.0.0.1:9863/metrics\n"
	"  cgsched export --listen :9863 --web-config /etc/cgsched/web.yml\n";

struct export_opts {
	struct common_opts c;
	struct exporter_opts x;
	struct demand_all_opts d;
	bool quiet;
};

/* Demand per period: read the steps when due, under the lock the scrapes take. */
struct export_tick {
	struct exporter *x;
	struct demand_all *d;
};

static int tick(void *ctx, uint64_t now)
{
	struct export_tick *t = ctx;

	exporter_lock(t->x);
	int ms = demand_all_tick(t->d, now);
	exporter_unlock(t->x);
	return ms;
}

static int export_opt(void *ctx, int c, const char *arg)
{
	struct export_opts *o = ctx;

	if (c == 'q') {
		o->quiet = true;
		return OPT_TAKEN;
	}
	if (c == OPT_NO_CAUSES || c == OPT_CAUSES) {
		o->c.so.tc.causes = c == OPT_CAUSES;
		return OPT_TAKEN;
	}
	if (c == OPT_NO_DEMAND) {
		o->c.so.tc.per = false;
		return OPT_TAKEN;
	}
	if (c == OPT_ADVISE_TARGET) {
		double pct;
		const char *end;
		/* The project's decimal parser, as every other option: no exponents, hex, "inf" or sign. */
		if (parse_decimal(arg, &pct, &end) || *end || pct >= 100) {
			cgs_err("--advise-target %s: expected a percentage from 0 to under 100", arg);
			return OPT_BAD;
		}
		o->d.target = pct / 100;
		return OPT_TAKEN;
	}
	if (c == OPT_ADVISE_WINDOW)
		return opt_duration("--advise-window", arg, 1000000000ULL, 10000000000ULL, 7 * 86400000000000ULL,
				    "from 10s to 7d", &o->d.window_ns)
			       ? OPT_BAD
			       : OPT_TAKEN;
	return exporter_opt(&o->x, c, arg);
}

int cmd_export(int argc, char **argv)
{
	static const struct option longs[] = {
		EXPORT_LONG_OPTS,
		WHY_LONG_OPT,
		{ "causes", no_argument, NULL, OPT_CAUSES },
		{ "no-causes", no_argument, NULL, OPT_NO_CAUSES },
		{ "no-demand", no_argument, NULL, OPT_NO_DEMAND },
		{ "advise-target", required_argument, NULL, OPT_ADVISE_TARGET },
		{ "advise-window", required_argument, NULL, OPT_ADVISE_WINDOW },
		{ "quiet", no_argument, NULL, 'q' },
		COMMON_LONG_OPTS,
		{},
	};
	struct export_opts o = {};
	const struct cmd_spec spec = {
		.name = "export",
		.usage = usage,
		.shorts = "qvh",
		.longs = longs,
		.opt = export_opt,
		.ctx = &o,
		.common = &o.c,
		.nargs = 0,
	};
	struct exporter *x;
	struct session s;
	struct demand_all dem;
	bool have_dem = false;
	int err;

	stop_catch_hup(); /* documented: a reload, never a kill, from the first line */
	/*
	 * A scrape's large buffers (the body, the samples: megabytes with
	 * thousands of cgroups) are kept for the next, so each is one mapping
	 * of its own, grown in place (mremap) and given back whole. Under
	 * main()'s thresholds for top (blocks kept in the heap) the buffers a
	 * first scrape outgrew stayed resident, ~24 MB at 10,000 cgroups
	 * (docs/performance.md).
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	common_init(&o.c);
	/*
	 * The split of waits by what ran is asked for (--causes): it costs
	 * 0.30-0.35 of runqlat's program time, at or over the 0.3 that causes on by
	 * default may cost (docs/performance.md). The quota causes are in
	 * the default path.
	 */
	o.c.so.tc.causes = false;
	o.c.so.tc.per = true;
	o.d = (struct demand_all_opts){ .target = 0.01, .window_ns = 3600 * 1000000000ULL };
	exporter_opts_init(&o.x);
	if ((err = cmd_parse(&spec, argc, argv, &(int){ 0 })))
		return err;
	if ((err = require_root("tracing the scheduler needs CAP_BPF and CAP_PERFMON")))
		return err;
	/* The web config and the port first: a bad file or a port in use costs no tracing. */
	if ((err = exporter_open(&x, &o.x)))
		return err;
	/* Removed cgroups' figures outlive their series' grace (noticed within 5 s). */
	o.c.so.tc.keep_removed_ns = o.x.grace_ns + 10000000000ULL;
	if ((err = session_open(&s, &o.c.so)))
		goto out;
	if (o.c.so.tc.per) {
		if ((err = demand_all_start(&dem, &s, &o.d))) {
			cgs_err("export: out of memory");
			err = CGS_EXIT_FAIL;
			session_close(&s);
			goto out;
		}
		have_dem = true;
	}
	exporter_attach(x, &s, o.c.so.tc.why, o.c.so.tc.causes, have_dem ? &dem : NULL);
	struct export_tick et = { x, &dem };
	if (have_dem) {
		s.tick = tick;
		s.tick_ctx = &et;
	}
	if (!o.quiet) {
		char desc[512];
		fprintf(stderr, "cgsched: tracing %d CPUs, %s; serving %s; SIGTERM or Ctrl-C to stop\n", s.tr.ncpus,
			session_describe(&s, desc, sizeof(desc)), exporter_url(x));
	}
	while (session_sleep_until(&s, now_ns() + 1000000000ULL)) {
		/* Episodes are counted in the maps; their periods here (metrics: throttling period by period). */
		exporter_episodes(x);
		if (cgs_hup) {
			cgs_hup = 0;
			exporter_reload(x, NULL);
		}
		exporter_tick(x);
	}
	if (!o.quiet)
		fprintf(stderr, "cgsched: export stopped\n");
out:
	/* The server stops before the session it reads from closes. */
	exporter_close(x);
	if (have_dem)
		demand_all_free(&dem);
	if (!err)
		session_close(&s);
	return err;
}
