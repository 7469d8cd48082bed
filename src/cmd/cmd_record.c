// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cgsched record -- CMD: like `perf stat -- CMD`, for cgroup scheduling. It
 * makes a transient cgroup where the cpu controller lives, applies limits and
 * starts CMD in it. The child moves itself into the cgroup before exec, so
 * no task of CMD runs outside it. record traces the cgroup and its
 * descendants until CMD exits, removes the cgroup, reports, and exits with
 * CMD's status. --attach traces an existing cgroup instead. What a killed
 * record left (cmd/record_orphans.h) is cleared at the next start.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "lib/atomic_file.h"
#include "session/demand_rec.h"
#include "session/refresh.h"
#include "session/timeline_rec.h"
#include "report/json_out.h"
#include "figures/kstat.h"
#include "figures/kusage.h"
#include "limits/cpu_limits.h"
#include "kernel/psi.h"
#include "report/record.h"
#include "cmd/record_orphans.h"
#include "cmd/rules.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched record [OPTIONS] -- CMD [ARGS...]\n"
	"       cgsched record [OPTIONS] --attach PATH [-d DUR | --pid PID]\n"
	"       cgsched record --cleanup\n"
	"Run CMD in a new cgroup with the given limits, and trace it and its\n"
	"descendants until CMD exits. Then remove the cgroup, print a summary and\n"
	"histograms on stderr, and exit with CMD's status (128+N for signal N).\n"
	"Ctrl-C reaches CMD.\n"
	"\n"
	"      --cpu-max LIMIT    QUOTA[/PERIOD] in us (or 50ms/100ms), PCT% of one\n"
	"                         CPU, or Ncpus\n"
	"      --cpu-weight N     1..10000 (cgroup v1: converted to shares by the\n"
	"                         kernel's formula)\n"
	"      --cpu-burst DUR    with --cpu-max: the CFS burst (cpu.max.burst, Linux\n"
	"                         5.14+), quota that a period may carry over from idle\n"
	"                         ones. At most the quota\n"
	"      --demand           keep the CPU demand period by period, for 'cgsched\n"
	"                         advise'. It reads the maps every tenth of a period,\n"
	"                         which costs about 1 % of a CPU\n"
	"      --name NAME        the cgroup's name (default cgsched-record-PID). It must\n"
	"                         not exist\n"
	"  -o, --output FILE      write the report as JSON (docs/json.md), for 'cgsched\n"
	"                         check'\n"
	"      --attach PATH      trace this existing cgroup instead of running CMD\n"
	"  -d, --duration DUR     with --attach: stop after DUR\n"
	"      --pid PID          with --attach: stop when PID exits\n"
	"      --why              split the waits into causes: a verdict line, and\n"
	"                         \"waited\" in the report\n"
	"      --timeline FILE    also write a Perfetto trace (ui.perfetto.dev): a track\n"
	"                         per cgroup with its throttle episodes per CPU, its\n"
	"                         long waits and counters every 0.5 s\n"
	"      --long-wait DUR    with --timeline: each wait this long or longer is in\n"
	"                         the trace (default 10ms)\n"
	"      --repeat N         run CMD N times (at most 1000), each in a fresh cgroup\n"
	"                         with the same limits. The report keeps every run's\n"
	"                         figures, their medians and intervals, for 'cgsched\n"
	"                         check --baseline'. The rest of it is the last run's\n"
	"      --warmup K         with --repeat: K more runs first, not kept\n"
	"      --check            apply the rules below after the run (exit 1 when one\n"
	"                         fails)\n"
	"      --max-throttled-pct X, --max-runq-p99 DUR, --min-cpu-pct X,\n"
	"      --baseline OLD.json --max-regression PCT, --confidence PCT,\n"
	"      --junit FILE, --format text|github\n"
	"                         the rules and outputs of 'cgsched check'\n"
	"      --sched-backend B, --throttle-backend B, --max-cgroups N\n"
	"                         as for top. There is no --cgroup: record traces its\n"
	"                         own cgroup, or the one of --attach\n"
	"      --priority P       as for top: cgsched's own threads, never CMD (it\n"
	"                         starts as an ordinary task)\n"
	"  -q, --quiet            no live status line\n"
	"  -v, --verbose          libbpf's messages\n"
	"      --cleanup          remove what killed records left (below), then exit\n"
	"\n"
	"A record killed by SIGKILL or the OOM killer cannot remove its cgroup.\n"
	"/cgsched-record-PID stays, with its limits and what still runs of CMD.\n"
	"The next record removes such a cgroup when it is empty, and names it when\n"
	"processes are left. --cleanup ends those processes and removes the cgroup.\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched record --cpu-max 25% -- ./bench\n"
	"  cgsched record --cpu-max 400000/1000000 -o run.json -- make -j8\n"
	"  cgsched record --check --max-throttled-pct 5 -- ./loadtest\n"
	"  cgsched record --repeat 10 --warmup 1 --cpu-max 50% -o main.json -- ./bench\n"
	"  cgsched record --attach /system.slice/nginx.service -d 30s -o nginx.json\n"
	"  cgsched record --cleanup\n";


struct rec_opts {
	struct common_opts c;
	struct cpu_limits lim;
	const char *name, *out, *attach;
	uint64_t duration_ns;
	long pid;
	unsigned repeat, warmup;  /* --repeat (0: one run), --warmup */
	int pid_fd;          /* pid_watch(pid) */
	bool quiet, check, cleanup, demand, has_warmup;
	struct rules rules;
	char **cmd;
};

static bool name_ok(const char *n)
{
	if (!*n || *n == '.' || strlen(n) > 200)
		return false;
	for (const char *p = n; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_' || *p == '.'))
			return false;
	return true;
}

/* Like execvp's search, so "not found" is known before anything is made. */
static bool runnable(const char *cmd)
{
	char path[PATH_MAX];
	const char *p = getenv("PATH");

	if (strchr(cmd, '/'))
		return !access(cmd, X_OK);
	for (p = p ? p : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		/* An empty element is the current directory, as for execvp. */
		int k = n ? snprintf(path, sizeof(path), "%.*s/%s", (int)n, p, cmd)
			  : snprintf(path, sizeof(path), "./%s", cmd);
		if (k > 0 && (size_t)k < sizeof(path) && !access(path, X_OK))
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

static int record_opt(void *ctx, int c, const char *arg)
{
	struct rec_opts *o = ctx;
	const char *why;
	uint64_t v;

	switch (c) {
	case OPT_CPU_MAX:
		if (parse_cpu_max(arg, &o->lim.quota_us, &o->lim.period_us, &why)) {
			cgs_err("--cpu-max %s: %s", arg, why);
			return OPT_BAD;
		}
		o->lim.has_max = true;
		return OPT_TAKEN;
	case OPT_CPU_BURST:
		if (opt_duration("--cpu-burst", arg, 1000ULL, 0, CGS_QUOTA_MAX_US * 1000 + 999,
				 "(e.g. 20ms; a bare number is us)", &v))
			return OPT_BAD;
		o->lim.burst_us = v / 1000;
		o->lim.has_burst = true;
		return OPT_TAKEN;
	case OPT_CPU_WEIGHT:
		if (parse_cpu_weight(arg, &o->lim.weight, &why)) {
			cgs_err("--cpu-weight %s: %s", arg, why);
			return OPT_BAD;
		}
		o->lim.has_weight = true;
		return OPT_TAKEN;
	case OPT_NAME:
		if (!name_ok(arg)) {
			cgs_err("--name %s: use letters, digits, '-', '_' and '.', not starting with '.'", arg);
			return OPT_BAD;
		}
		o->name = arg;
		return OPT_TAKEN;
	case 'o':
		o->out = arg;
		return OPT_TAKEN;
	case OPT_ATTACH:
		o->attach = arg;
		return OPT_TAKEN;
	case 'd':
		return opt_duration("-d", arg, 1000000000ULL, 1, 0, "(e.g. 30, 500ms, 2m)", &o->duration_ns);
	case OPT_PID:
		if (parse_u64(arg, 1, 4194304, &v)) {
			cgs_err("--pid %s: expected a process id", arg);
			return OPT_BAD;
		}
		o->pid = v;
		return OPT_TAKEN;
	case OPT_CHECK:
		o->check = true;
		return OPT_TAKEN;
	case OPT_REPEAT:
	case OPT_WARMUP:
		if (parse_u64(arg, c == OPT_REPEAT ? 1 : 0, 1000, &v)) {
			cgs_err("--%s %s: expected a number of runs from %d to 1000", c == OPT_REPEAT ? "repeat" : "warmup",
				arg, c == OPT_REPEAT ? 1 : 0);
			return OPT_BAD;
		}
		*(c == OPT_REPEAT ? &o->repeat : &o->warmup) = (unsigned)v;
		if (c == OPT_WARMUP)
			o->has_warmup = true;
		return OPT_TAKEN;
	case OPT_DEMAND:
		o->demand = true;
		return OPT_TAKEN;
	case OPT_CLEANUP:
		o->cleanup = true;
		return OPT_TAKEN;
	case 'q':
		o->quiet = true;
		return OPT_TAKEN;
	}
	return OPT_NOT_MINE;
}

static int parse(struct rec_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "cpu-max", required_argument, NULL, OPT_CPU_MAX },
		{ "cpu-weight", required_argument, NULL, OPT_CPU_WEIGHT },
		{ "cpu-burst", required_argument, NULL, OPT_CPU_BURST },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "output", required_argument, NULL, 'o' },
		{ "attach", required_argument, NULL, OPT_ATTACH },
		{ "duration", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "cleanup", no_argument, NULL, OPT_CLEANUP },
		{ "demand", no_argument, NULL, OPT_DEMAND },
		{ "quiet", no_argument, NULL, 'q' },
		RULES_LONG_OPTS,
		WHY_LONG_OPT,
		TIMELINE_LONG_OPTS,
		COMMON_LONG_OPTS,
		{},
	};
	/* "+": stop at CMD, whose options are its own. */
	const struct cmd_spec spec = {
		.name = "record",
		.usage = usage,
		.shorts = "+o:d:qvh",
		.longs = longs,
		.opt = record_opt,
		.ctx = o,
		.common = &o->c,
		.rules = &o->rules,
		.nargs = -1,
	};
	int first, err;

	common_init(&o->c);
	if ((err = cmd_parse(&spec, argc, argv, &first)))
		return err;
	o->cmd = first < argc ? argv + first : NULL;
	if (o->c.so.ncgroups) {
		cgs_err("record: --cgroup does not apply; record traces its own cgroup (or --attach PATH)");
		return CGS_EXIT_USAGE;
	}
	if (o->cleanup) {
		if (o->cmd || o->attach || o->out || o->name || o->lim.has_max || o->lim.has_weight || o->lim.has_burst ||
		    o->duration_ns ||
		    o->pid || o->check || o->c.timeline) {
			cgs_err("record: --cleanup removes what killed records left, and nothing else: give it no command or other option");
			return CGS_EXIT_USAGE;
		}
		return 0;
	}
	if (o->rules.has_conf && !o->repeat && !o->rules.has_regr) {
		cgs_err("record: --confidence goes with --repeat or --baseline: the intervals' and the test's");
		return CGS_EXIT_USAGE;
	}
	if (o->has_warmup && !o->repeat) {
		cgs_err("record: --warmup goes with --repeat: runs before the measured ones");
		return CGS_EXIT_USAGE;
	}
	if (o->repeat && (o->attach || o->c.timeline)) {
		cgs_err("record: --repeat runs a command several times; --attach and --timeline record one run");
		return CGS_EXIT_USAGE;
	}
	if (o->attach) {
		if (o->cmd) {
			cgs_err("record: --attach traces an existing cgroup; give it no command");
			return CGS_EXIT_USAGE;
		}
		if (o->lim.has_max || o->lim.has_weight || o->lim.has_burst || o->name) {
			cgs_err("record: --attach leaves the cgroup as it is: no --cpu-max, --cpu-weight, --cpu-burst or --name");
			return CGS_EXIT_USAGE;
		}
		if (o->pid && (o->pid_fd = pid_watch(o->pid)) == -1) {
			cgs_err("--pid %ld: no such process", o->pid);
			return CGS_EXIT_USAGE;
		}
	} else {
		if (!o->cmd) {
			cgs_err("record: no command; usage: cgsched record [OPTIONS] -- CMD [ARGS...]");
			return CGS_EXIT_USAGE;
		}
		if (o->duration_ns || o->pid) {
			cgs_err("record: -d and --pid go with --attach; a command runs until it exits");
			return CGS_EXIT_USAGE;
		}
		/* The kernel refuses a burst above the quota, or without one. */
		if (o->lim.has_burst && (!o->lim.has_max || !o->lim.quota_us || o->lim.burst_us > o->lim.quota_us)) {
			cgs_err("record: --cpu-burst goes with a --cpu-max quota, and at most that quota");
			return CGS_EXIT_USAGE;
		}
		if (!runnable(o->cmd[0])) {
			cgs_err("record: %s: command not found or not executable", o->cmd[0]);
			return CGS_EXIT_USAGE;
		}
	}
	if (rules_validate(&o->rules) || common_timeline_finish(&o->c))
		return CGS_EXIT_USAGE;
	if (o->check && !rules_any(&o->rules)) {
		cgs_err("record: --check needs a rule (--max-throttled-pct, --max-runq-p99, --min-cpu-pct, --baseline)");
		return CGS_EXIT_USAGE;
	}
	/* The trace's name too, before the cgroup is made (tl_rec_open comes after). */
	if (o->c.timeline) {
		const char *why;
		if (output_path_check(o->c.timeline, &why)) {
			cgs_err("--timeline %s: cannot write there: %s", o->c.timeline, why);
			return CGS_EXIT_USAGE;
		}
	}
	if (o->out) {
		const char *why;
		if (output_path_check(o->out, &why)) {
			cgs_err("-o %s: cannot write there (%s)", o->out, why);
			return CGS_EXIT_USAGE;
		}
		/* Both are written beside the name and renamed to it: one would replace the other. */
		if (o->c.timeline && !strcmp(o->out, o->c.timeline)) {
			cgs_err("record: -o and --timeline both name %s; give each its own file", o->out);
			return CGS_EXIT_USAGE;
		}
	}
	return 0;
}

/* Signals: ours, not CMD's, are forwarded; the terminal's reach CMD directly. */
static volatile pid_t child = -1;

static void forward(int sig, siginfo_t *si, void *uc)
{
	cgs_stop = sig;
	/* SI_KERNEL: from the terminal to the whole foreground group, CMD included. */
	if (child > 0 && si->si_code != SI_KERNEL)
		kill(child, sig);
}

static const int fwd_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void block_forwarded(sigset_t *set, sigset_t *old)
{
	sigemptyset(set);
	for (size_t i = 0; i < ARRAY_SIZE(fwd_sigs); i++)
		sigaddset(set, fwd_sigs[i]);
	sigprocmask(SIG_BLOCK, set, old);
}

static void install_forwarding(void)
{
	struct sigaction sa = { .sa_sigaction = forward, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(fwd_sigs); i++)
		sigaction(fwd_sigs[i], &sa, NULL);
}

/* The child: into the cgroup, then exec; errno back through a CLOEXEC pipe. */
static void run_child(struct cgfs *fs, const char *rel, char **cmd, int errfd, const sigset_t *mask)
{
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(fwd_sigs); i++)
		signal(fwd_sigs[i], SIG_DFL);
	/* A signal forwarded before this point was held: it acts now, as its default. */
	sigprocmask(SIG_SETMASK, mask, NULL);
	/* "0" is the writer itself: the child is in the cgroup before CMD exists. */
	if ((err = cgfs_write(fs, rel, "cgroup.procs", "0")) == 0) {
		execvp(cmd[0], cmd);
		err = -errno;
	}
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* One run of record: what cmd_record sets up, traces and takes down. */
struct rec_run {
	struct rec_opts *o;
	struct session s;
	bool opened;                /* session_open succeeded; else s holds only fs */
	char rel[PATH_MAX];         /* the traced cgroup */
	const char *paths[1];       /* it, as the session's --cgroup */
	bool made;                  /* by us: removed at the end */
	int claim;                  /* record_claim's lock on it, or -1 */
	struct tl_rec tl, *tlp;     /* --timeline; tlp NULL without */
	bool traced;                /* traced to the end: the timeline is kept */
	bool tty;                   /* the progress line */
	struct snapshot prev, cur;  /* the last progress read, the window's end */
	bool have_prev;
	uint64_t t0, next_progress; /* the window's start (CMD's fork, or the attach) */
	int status;                 /* CMD's wait status */
	/*
	 * The kernel's CPU time of the subtree at both ends, each read right
	 * before ([0]) and right after ([1]) cgsched's read of its maps there.
	 */
	struct kusage ku0[2], ku1[2];
	bool ku_ok;                 /* every read so far succeeded (kusage_pair) */
	struct kstat k0;
	uint64_t psi0;
	bool psi_ok, psi_host;
	struct record_summary rs;
	struct episode_log el;
	struct cgs_episode *open;   /* its own quota's episodes open at the end (rs.open) */
	size_t nopen;
	struct refresh f;
	struct demand_rec dr;       /* CPU demand period by period */
	int end_fd;                 /* readable when the window ends: CMD's pidfd, --pid's; -1: none */
};

/* Every 0.5 s: the progress line on a terminal, the timeline's counters with --timeline. */
static void progress(struct rec_run *r)
{
	struct session *s = &r->s;
	struct snapshot *prev = r->have_prev ? &r->prev : &s->base, cur = { 0 };
	char a[16], b[16];
	uint64_t on = 0, thr = 0, n = 0, wall;

	if (snapshot_take(&s->tr, &cur, &(struct snapshot_how){ .prev = prev }))
		goto out;
	if (r->tlp)
		tl_rec_snapshots(r->tlp, prev, &cur);
	for (size_t i = 0; r->tty && i < cur.n; i++) {
		on += cur.cg[i].c.oncpu_ns;
		uint64_t t = cur.cg[i].c.thr_ns > cur.cg[i].c.thr_wait_ns ? cur.cg[i].c.thr_ns
									 : cur.cg[i].c.thr_wait_ns;
		thr += t;
		n += cur.cg[i].c.thr_count;
	}
	wall = cur.t_ns - r->t0;
	if (r->tty)
		fprintf(stderr, "\rcgsched: %s  CPU %.1f%%  throttled %s (%llu)\033[K",
		fmt_duration(a, sizeof(a), wall), wall ? 100.0 * on / wall : 0,
		fmt_duration(b, sizeof(b), thr), (unsigned long long)n);
	snapshot_free(&r->prev);
	r->prev = cur;
	cur = (struct snapshot){ 0 };
	r->have_prev = true;
out:
	snapshot_free(&cur);
}

/*
 * While the window is open, every 20 ms at most: progress, the tracer's
 * upkeep, its ring buffers; at each period's end, the demand's read.
 */
static void tick(struct rec_run *r)
{
	int ms = demand_rec_tick(&r->dr, &r->s, now_ns());

	if ((r->tty || r->tlp) && now_ns() >= r->next_progress) {
		progress(r);
		r->next_progress += 500000000ULL;
	}
	tracer_recheck_limits(&r->s.tr);
	tracer_maintain(&r->s.tr);
	tracer_poll_fd(&r->s.tr, r->end_fd, ms < 20 ? ms : 20);
}

/* Whole or not at all (lib/atomic_file.h): a reader never sees half a report. */
static int write_report(const char *path, const char *text, size_t len)
{
	struct atomic_file f;
	int err = atomic_file_open(&f, path, 0644, false);

	if (!err) {
		if (!(err = atomic_file_write(&f, text, len)))
			err = atomic_file_write(&f, "\n", 1);
		int cerr = atomic_file_close(&f, !err);
		err = err ? err : cerr;
	}
	if (err)
		cgs_err("-o %s: cannot write there (%s)", path, strerror(-err));
	return err ? -1 : 0;
}

/* The cgroup to trace: --attach's, or a new one with the limits. 0 or CGS_EXIT_USAGE (said). */
static int record_cgroup(struct rec_run *r)
{
	struct rec_opts *o = r->o;
	struct cgfs *fs = &r->s.fs;
	char name[64];
	int err;

	if (o->attach) {
		if (cgpath_normalize(fs->mnt, o->attach, r->rel, sizeof(r->rel)) || cgfs_id(fs, r->rel, &(uint64_t){ 0 })) {
			cgs_err("--attach %s: no such cgroup in the cpu hierarchy (cgroup v%d at %s)", o->attach,
				fs->version, fs->mnt);
			return CGS_EXIT_USAGE;
		}
		return 0;
	}
	if (cgfs_writable_or_explain(fs, "record"))
		return CGS_EXIT_USAGE;
	snprintf(name, sizeof(name), "cgsched-record-%d", getpid());
	snprintf(r->rel, sizeof(r->rel), "/%s", o->name ? o->name : name);
	/* Killed records' cgroups: the empty ones go, the others are named (one may have our pid's name). */
	record_orphans(fs, false);
	if ((err = cgfs_mkdir(fs, r->rel))) {
		if (err == -EEXIST && !o->name)
			cgs_err("record: cgroup %s exists already, left by a killed record: 'cgsched record --cleanup' "
				"removes it (or give --name)", r->rel);
		else
			cgs_err(err == -EEXIST ? "record: cgroup %s exists already; choose another --name"
					       : "record: cannot make cgroup %s: %s",
				r->rel, strerror(-err));
		return CGS_EXIT_USAGE;
	}
	r->made = true;
	/* Ours while we run: a later record tells a killed one's cgroup by its free lock. */
	if ((r->claim = record_claim(fs, r->rel)) < 0)
		cgs_debug("record: cannot lock %s: %s", r->rel, strerror(-r->claim));
	if ((err = limits_apply(fs, r->rel, &o->lim))) {
		if (err == -ENOENT && o->lim.has_burst)
			cgs_err("record: --cpu-burst: this kernel has no CFS burst (%s, Linux 5.14+)",
				fs->version == 1 ? "cpu.cfs_burst_us" : "cpu.max.burst");
		else
			cgs_err("record: cannot apply the limits to %s: %s", r->rel, strerror(-err));
		return CGS_EXIT_USAGE;
	}
	return 0;
}

/*
 * The kernel's own count of the subtree, read right before and right after
 * cgsched's first read of its maps (session_open calls this around it),
 * and again around its last (record_end). Between the two reads of a pair
 * the kernel's count moves on. That takes a few microseconds on a host. In
 * a virtual machine the CPU doing the reads can be stopped while a task on
 * another CPU runs on, for a hundred milliseconds or more. So the window's
 * figure is known only within the pairs: the report gives their middle and
 * that spread. pair: ku0 or ku1.
 */
static void kusage_pair(struct rec_run *r, struct kusage *pair, bool after)
{
	if (r->ku_ok)
		r->ku_ok = !kusage_read(&r->s.fs, r->rel, !!r->o->attach, &pair[after]);
}

/* session_open's hook around the baseline read: the window's first pair. */
static void kusage_first(void *ctx, bool after)
{
	struct rec_run *r = ctx;

	kusage_pair(r, r->ku0, after);
}

/* The window's kernel figure from the four reads: its least and most, their middle. */
static void kusage_window(struct rec_run *r)
{
	struct record_summary *rs = &r->rs;
	uint64_t lo, hi;
	unsigned moved_lo, moved_hi;

	if (kusage_delta(&r->ku0[1], &r->ku1[0], &lo, &moved_lo) ||
	    kusage_delta(&r->ku0[0], &r->ku1[1], &hi, &moved_hi))
		return;
	if (hi < lo) /* schedstat: a thread in only the outer reads */
		hi = lo;
	rs->k_oncpu_ns = lo + (hi - lo) / 2;
	rs->k_oncpu_spread_ns = hi - lo;
	rs->k_oncpu_moved = moved_hi > moved_lo ? moved_hi : moved_lo;
	rs->k_oncpu_source = r->ku0[0].source;
}

/* The trace's file, then the session on the cgroup. 0, or the exit status (said). */
static int record_trace(struct rec_run *r)
{
	struct rec_opts *o = r->o;
	int err;

	/* The session re-opens cgroupfs; ours stays for paths and removal. */
	r->paths[0] = r->rel;
	o->c.so.cgroups = r->paths;
	o->c.so.ncgroups = 1;
	o->c.so.tc.demand = o->demand;
	struct cgfs keep = r->s.fs;
	/* The trace's file before tracing: a bad path costs no tracing (the cgroup goes at the end). */
	if (o->c.timeline) {
		if ((err = tl_rec_open(&r->tl, o->c.timeline)))
			return err;
		r->tlp = &r->tl;
	}
	o->c.so.tc.keep_removed_ns = UINT64_MAX; /* the summary is since start: a cgroup removed meanwhile stays in it */
	r->ku_ok = true;
	o->c.so.around_base = kusage_first;
	o->c.so.around_ctx = r;
	if ((err = session_open(&r->s, &o->c.so))) {
		r->s.fs = keep;
		return err; /* bad input, or stopped during start-up: the cgroup goes */
	}
	r->opened = true;
	cgfs_close(&keep);
	if (r->tlp)
		tl_rec_attach(r->tlp, &r->s);
	return 0;
}

/* The window's start: what the report's header and the kernel's figures begin from. */
static void record_begin(struct rec_run *r)
{
	struct rec_opts *o = r->o;
	struct record_summary *rs = &r->rs;
	struct timespec rt;

	session_trace_info(&r->s, &rs->ti);
	rs->argv = o->cmd;
	rs->cgroup = r->rel;
	rs->attached = !!o->attach;
	rs->limits = o->lim;
	rs->k_ok = !kstat_read(&r->s.fs, r->rel, &r->k0);
	r->psi_ok = o->c.so.tc.why && !psi_read_cgroup(&r->s.fs, r->rel, &r->psi0, &r->psi_host);
	clock_gettime(CLOCK_REALTIME, &rt);
	rs->start_time = rt.tv_sec + rt.tv_nsec / 1e9;
	r->tty = isatty(STDERR_FILENO) && !o->quiet;
	/* A command's wall time starts at its fork; an attached cgroup's at attach. */
	r->t0 = o->attach ? r->s.tr.attached_ns : now_ns();
	r->next_progress = r->t0 + 500000000ULL;
	/*
	 * Demand period by period: on its quota's grid where it has one (the
	 * limits just applied, or the attached cgroup's), else in windows of
	 * the default period.
	 */
	uint64_t id = 0;
	bool quota = rs->k_ok && r->k0.quota_us >= 0;
	uint64_t period = rs->k_ok && r->k0.period_us ? r->k0.period_us * 1000 : CGS_PERIOD_DEFAULT_US * 1000;
	bool grid = quota && !cgfs_id(&r->s.fs, r->rel, &id); /* before id is passed on */
	if (o->demand)
		demand_rec_start(&r->dr, &r->s, period, grid, !o->attach, id, r->rel, now_ns());
}

/* CMD in the cgroup, traced until it exits. 0, or -1 when it could not run (said). */
static int run_command(struct rec_run *r, const sigset_t *old)
{
	int pipefd[2] = { -1, -1 }, cerr = 0, ret = -1;
	pid_t pid = -1, w;
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC))
		cgs_err("record: pipe: %s", strerror(errno));
	else if ((pid = fork()) < 0)
		cgs_err("record: fork: %s", strerror(errno));
	else if (pid == 0)
		run_child(&r->s.fs, r->rel, r->o->cmd, pipefd[1], old);
	child = pid;
	sigprocmask(SIG_SETMASK, old, NULL);
	if (pid < 0)
		goto out;
	close(pipefd[1]);
	pipefd[1] = -1;
	while ((n = read(pipefd[0], &cerr, sizeof(cerr))) < 0 && errno == EINTR)
		;
	close(pipefd[0]);
	pipefd[0] = -1;
	if (n == sizeof(cerr)) {
		waitpid(pid, NULL, 0);
		child = -1; /* reaped: its pid may be anyone's now */
		cgs_err("record: cannot run %s: %s", r->o->cmd[0], strerror(-cerr));
		goto out;
	}
	/* The command runs in its new cgroup from here: its demand's windows begin now. */
	if (r->o->demand)
		demand_rec_origin(&r->dr, &r->s, now_ns());
	/*
	 * Until CMD exits; a signal to us was forwarded to it, so keep waiting.
	 * Its exit ends the window when it happens (tick's wait on its pidfd),
	 * not at the next poll's timeout.
	 */
	if ((r->end_fd = pid_watch(pid)) < 0)
		r->end_fd = -1;
	while ((w = waitpid(pid, &r->status, WNOHANG)) != pid) {
		if (w < 0 && errno != EINTR) {
			cgs_err("record: waitpid: %s", strerror(errno));
			break;
		}
		tick(r);
	}
	if (r->end_fd >= 0)
		close(r->end_fd);
	r->end_fd = -1;
	if (w != pid)
		goto out;
	child = -1;
	ret = 0;
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	return ret;
}

/* --attach: until -d, --pid's exit, or a stop signal. */
static void attach_window(struct rec_run *r)
{
	const struct rec_opts *o = r->o;
	uint64_t end = o->duration_ns ? r->t0 + o->duration_ns : UINT64_MAX;

	r->end_fd = o->pid ? o->pid_fd : -1; /* main's, closed there */
	while (!cgs_stop && now_ns() < end && !(o->pid && pid_gone(o->pid_fd, o->pid)))
		tick(r);
}

/*
 * The traced cgroup's throttling period by period (report/record.h): its
 * period grid from one pass of the cgroup iterator (the files have none;
 * without the iterator the figures stay unknown).
 */
static void record_grid_periods(struct rec_run *r)
{
	struct record_summary *rs = &r->rs;
	struct kstat_src ks = {};
	struct kstat k;
	uint64_t id;

	if (!rs->k_ok || rs->k.quota_us < 0 || cgfs_id(&r->s.fs, r->rel, &id))
		return;
	if (!kstat_src_open(&ks, &r->s.fs, KSTAT_ITER) && !kstat_src_refresh(&ks) &&
	    !kstat_src_get(&ks, id, r->rel, &k) && record_periods(rs, id, k.period_end_ns))
		cgs_err("period by period: out of memory");
	kstat_src_close(&ks);
}

/* The window's end: the last read, the kernel's figures beside it, the rows. 0 or -1 (said). */
static int record_end(struct rec_run *r)
{
	const struct rec_opts *o = r->o;
	struct record_summary *rs = &r->rs;
	struct session *s = &r->s;
	struct kstat k1;
	int err;

	rs->wall_ns = now_ns() - r->t0;
	if (r->tty)
		fputs("\r\033[K", stderr);
	tracer_sync_cpus(&s->tr); /* the window's end: what runs is the right task's, traced or not */
	/* ...and the kernel's count on both sides of the last read, as of the first (kusage_pair). */
	kusage_pair(r, r->ku1, false);
	if ((err = snapshot_take(&s->tr, &r->cur, &(struct snapshot_how){ .prev = r->have_prev ? &r->prev : &s->base }))) {
		cgs_err("reading the BPF maps failed: %s", strerror(-err));
		return -1;
	}
	kusage_pair(r, r->ku1, true);
	if (r->ku_ok)
		kusage_window(r);
	if (o->attach)
		rs->wall_ns = r->cur.t_ns - r->t0;
	if (r->tlp) { /* the last interval, the command, the losses: while still tracing */
		tl_rec_snapshots(r->tlp, r->have_prev ? &r->prev : &s->base, &r->cur);
		if (!o->attach)
			tl_rec_command(r->tlp, o->cmd[0], r->t0, r->t0 + rs->wall_ns);
		tl_rec_finish(r->tlp);
		r->traced = true; /* a whole run: the trace is kept */
	}
	/*
	 * Detached, the log and the open episodes are of one moment: none ends
	 * between the two reads (in neither) or is in both. An episode open at
	 * the end counts in the periods whose refills the kernel has counted by
	 * its last read of cpu.stat. A task's exit can leave a quota deficit
	 * that keeps its cfs_rq throttled after the exit: cpu.stat then counts
	 * refills that no switch of the cgroup shows to cgsched.
	 */
	if (o->demand)
		demand_rec_finish(&r->dr, s, now_ns());
	tracer_detach(&s->tr);
	tracer_take_episodes(&s->tr, &r->el);
	rs->ep = (struct episode_view){ r->el.e, r->el.n, r->el.truncated, r->t0, session_cgroup_name, s };
	rs->demand = r->dr.ds.n ? &r->dr.ds : NULL;
	uint64_t id;
	if (rs->k_ok && !cgfs_id(&s->fs, r->rel, &id) &&
	    tracer_open_episodes(&s->tr, id, now_ns(), &r->open, &r->nopen))
		cgs_err("the episodes open at the end: out of memory (the throttled periods leave them out)");
	tracer_stop(&s->tr);
	/* ...each up to the read of cpu.stat right after. */
	uint64_t at = now_ns();
	for (size_t i = 0; i < r->nopen; i++)
		r->open[i].end_ns = at;
	rs->open = r->open;
	rs->nopen = r->nopen;
	if (rs->k_ok && !kstat_read(&s->fs, r->rel, &k1)) {
		struct kstat_growth g = kstat_growth(&r->k0, &k1);
		rs->k = k1;
		rs->k_periods = g.periods;
		rs->k_throttled = g.throttled;
		rs->k_throttled_ns = g.throttled_ns;
		rs->k_bursts = g.bursts;
		rs->k_burst_ns = g.burst_ns;
	} else {
		rs->k_ok = false;
	}
	const struct refresh_opts ro = { .why = o->c.so.tc.why, .sort = true, .key = SORT_PATH };
	if (refresh_make(&r->f, s, &ro, &s->base, &r->cur))
		return -1;
	record_aggregate(rs, &r->f.r);
	record_grid_periods(r);
	if (r->f.why_ok) {
		uint64_t psi1;
		record_why(rs, &r->f.r, &s->fs);
		if (r->psi_ok && !psi_read_cgroup(&s->fs, r->rel, &psi1, &r->psi_host))
			rs->why.psi = (struct why_psi){ true, r->psi_host, psi1 > r->psi0 ? (psi1 - r->psi0) * 1000 : 0 };
	}
	memcpy(rs->drops, r->f.d.drops, sizeof(rs->drops));
	return 0;
}

/* The summary on stderr, the report to -o, the rules: record's exit status. */
static int record_report(struct rec_run *r, struct json_object *base)
{
	const struct rec_opts *o = r->o;
	struct record_summary *rs = &r->rs;
	int ret = 0;

	if (!o->attach && WIFEXITED(r->status)) {
		rs->exit_status = WEXITSTATUS(r->status);
		ret = rs->exit_status;
	} else if (!o->attach && WIFSIGNALED(r->status)) {
		rs->exit_signal = WTERMSIG(r->status);
		ret = 128 + rs->exit_signal;
	}
	record_print(stderr, rs);
	if (rs->repeat)
		record_repeat_print(stderr, rs->repeat);
	size_t len;
	char *text = record_json_text(rs, &len);
	if (!text) {
		cgs_err("out of memory writing the report");
		return ret ? ret : CGS_EXIT_FAIL;
	}
	if (o->out && write_report(o->out, text, len) && !ret)
		ret = CGS_EXIT_FAIL;
	/* The rules read the report as check reads a file of it: through json-c. */
	if (rules_any(&o->rules)) {
		struct json_object *j = json_tokener_parse(text);
		int n = j ? rules_eval(&o->rules, j, "this run's report", base, o->rules.baseline, stderr) : -1;
		if (!j)
			cgs_err("this run's report could not be read back for the rules");
		if (n && !ret)
			ret = n < 0 ? CGS_EXIT_USAGE : CGS_EXIT_FAIL;
		json_object_put(j);
	}
	free(text);
	return ret;
}

/* What a run leaves: nothing but the report and, traced to its end, the timeline. */
static int record_close(struct rec_run *r, int ret)
{
	int err;

	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	/* Kept once the run was traced to its end; bad input or a failed start leave no file. */
	if (r->tlp && tl_rec_close(r->tlp, r->traced) && !ret)
		ret = CGS_EXIT_FAIL;
	if (r->made && (err = cgfs_remove(&r->s.fs, r->rel)))
		cgs_warn("could not remove cgroup %s: %s", r->rel, strerror(-err));
	if (r->claim >= 0)
		close(r->claim);
	refresh_free(&r->f);
	demand_rec_free(&r->dr);
	snapshot_free(&r->cur);
	snapshot_free(&r->prev);
	free(r->el.e);
	free(r->open);
	for (int i = 0; i < 2; i++) {
		kusage_free(&r->ku0[i]);
		kusage_free(&r->ku1[i]);
	}
	if (r->opened)
		session_close(&r->s);
	else
		cgfs_close(&r->s.fs);
	r->opened = false;
	return ret;
}

/* Where a run stands in --repeat's: the figures kept so far, and which run this is. */
struct rec_turn {
	struct record_repeat *rep; /* NULL: one run, as without --repeat */
	unsigned i, total, warmup;
};

/* Which run t is, as the lines name it: "run 3 of 10", "warm-up 1 of 2". */
static const char *turn_name(const struct rec_turn *t, char *buf, size_t n)
{
	bool warm = t->i < t->warmup;

	snprintf(buf, n, "%s %u of %u", warm ? "warm-up" : "run", warm ? t->i + 1 : t->i - t->warmup + 1,
		 warm ? t->warmup : t->total - t->warmup);
	return buf;
}

/* One line of a run that is not the last of --repeat's. */
static void turn_line(const struct rec_turn *t, const struct record_fig *f)
{
	char a[16], b[16], c[16], name[48];

	fprintf(stderr, "cgsched record: %s: wall %s, on CPU %s, run-queue p99 %s, throttled %.1f%%\n",
		turn_name(t, name, sizeof(name)), fmt_duration(a, sizeof(a), f->wall_ns),
		fmt_duration(b, sizeof(b), f->oncpu_ns), fmt_duration(c, sizeof(c), f->runq_p99_ns), f->thr_pct);
}

/*
 * The run itself, once the cgroup and the session are there: 0 and the
 * report, or an exit status. Of --repeat's runs, all but the last give a
 * line and their figures (a run that fails or is stopped is reported as
 * the last: *stop).
 */
static int record_run(struct rec_run *r, struct json_object *base, const struct rec_turn *t, bool *stop)
{
	sigset_t fwd, old;

	/*
	 * From here a stop signal is passed to CMD. Held back until CMD's pid is
	 * known (and, in the child, until the default actions are back): one
	 * that came before is CMD never started.
	 */
	block_forwarded(&fwd, &old);
	install_forwarding();
	if (cgs_stop) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		*stop = true;
		return session_stopped();
	}
	record_begin(r);
	if (!r->o->attach) {
		if (run_command(r, &old)) {
			*stop = true;
			return CGS_EXIT_USAGE;
		}
	} else {
		sigprocmask(SIG_SETMASK, &old, NULL);
		attach_window(r);
	}
	if (record_end(r)) {
		*stop = true;
		return CGS_EXIT_USAGE;
	}
	if (t->rep) {
		bool ok = !r->o->attach && WIFEXITED(r->status) && !WEXITSTATUS(r->status) && !cgs_stop;
		struct record_fig f;
		record_fig_of(&r->rs, &f);
		if (ok && t->i >= t->warmup)
			t->rep->runs[t->rep->n++] = f;
		if (ok && t->i + 1 < t->total) {
			turn_line(t, &f);
			return 0;
		}
		char name[48];
		if (ok)
			r->rs.repeat = t->rep;
		else
			cgs_warn("record: %s did not end well (below): no summary of the runs",
				 turn_name(t, name, sizeof(name)));
		*stop = true;
	}
	return record_report(r, base);
}

int cmd_record(int argc, char **argv)
{
	struct rec_opts o = { .pid_fd = -1 };
	struct rec_run r = { .o = &o, .claim = -1, .end_fd = -1,
			     .rs = { .exit_status = -1, .exit_signal = -1 } };
	struct json_object *base = NULL;
	struct record_repeat rep = {};
	struct rec_turn t = {};
	int ret;

	r.s.fs.mnt_fd = -1;
	if ((ret = parse(&o, argc, argv)))
		goto out;
	if ((ret = require_root("record makes cgroups and loads BPF programs")))
		goto out;
	/* What tracing needs, before a cgroup is made for it. */
	if (tracer_precheck()) {
		ret = CGS_EXIT_USAGE;
		goto out;
	}
	if ((ret = cgfs_open_or_explain(&r.s.fs)))
		goto out;
	if (o.cleanup) {
		int left = record_orphans(&r.s.fs, true);
		if (left)
			cgs_err("record --cleanup: %d cgroup%s could not be removed", left, left == 1 ? "" : "s");
		ret = left ? CGS_EXIT_FAIL : 0;
		goto out;
	}
	/* The baseline before CMD runs: a bad one is bad input, not a failed run. */
	if (o.rules.baseline && !(base = report_load(o.rules.baseline))) {
		ret = CGS_EXIT_USAGE;
		goto out;
	}
	rep.warmup = o.warmup;
	rep.conf = o.rules.has_conf ? o.rules.confidence : 0.95;
	t = (struct rec_turn){ o.repeat ? &rep : NULL, 0, o.repeat ? o.warmup + o.repeat : 1, o.warmup };
	if (o.repeat && !(rep.runs = calloc(o.repeat, sizeof(*rep.runs)))) {
		cgs_err("record: out of memory for %u runs", o.repeat);
		ret = CGS_EXIT_USAGE;
		goto out;
	}
	/* Each run in a fresh cgroup (of the same name) with the same limits, traced afresh. */
	for (bool stop = false; !stop && t.i < t.total; t.i++) {
		if (t.i) {
			r = (struct rec_run){ .o = &o, .claim = -1, .end_fd = -1, .rs = { .exit_status = -1, .exit_signal = -1 } };
			r.s.fs.mnt_fd = -1;
			if ((ret = cgfs_open_or_explain(&r.s.fs)))
				break;
		}
		if (!(ret = record_cgroup(&r)) && !(ret = record_trace(&r)))
			ret = record_run(&r, base, &t, &stop);
		else
			stop = true;
		ret = record_close(&r, ret);
	}
out:
	/* Open, closed by record_close, or never opened: cgfs_close takes each. */
	cgfs_close(&r.s.fs);
	free(rep.runs);
	json_object_put(base);
	if (o.pid_fd >= 0)
		close(o.pid_fd);
	return ret;
}
