// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched watch: a flight recorder that writes the past out when a trigger fires (watch/watch.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "figures/kstat_src.h"
#include "kernel/psi.h"
#include "lib/stop.h"
#include "lib/util.h"
#include "session/refresh.h"
#include "session/session.h"
#include "watch/watch.h"
#include "watch/write.h"

#define WATCH_DIR_DEFAULT "/var/lib/cgsched/incidents"
#define WATCH_PID_DEFAULT "/run/cgsched/watch.pid"

static const char usage[] =
	"Usage: cgsched watch [OPTIONS]\n"
	"       cgsched watch --dump [--pid-file FILE] [--dir DIR]\n"
	"A flight recorder. watch keeps the last minutes of every cgroup's figures,\n"
	"throttle episodes and long waits, in bounded memory. When a trigger fires,\n"
	"it records a while longer and writes an incident to a directory of its own\n"
	"under DIR. An incident holds the window's report (in record's schema), a\n"
	"Perfetto trace of it and a summary. Each incident is also one line on\n"
	"stderr and in syslog. SIGUSR1, or --dump, writes one on demand.\n"
	"\n"
	"  -t, --trigger RULE=LIMIT[@WHICH]\n"
	"                         fire on this (repeatable; with none, fire only on\n"
	"                         demand). The rules:\n"
	"        max-runq-p99=DUR        an interval's run-queue p99 is over DUR\n"
	"        max-throttled-pct=PCT   throttled by its own quota for over PCT of an\n"
	"                                interval\n"
	"        max-throttled-run=N     N of its quota's periods throttled in a row\n"
	"        max-psi-some-pct=PCT    its cpu.pressure \"some\" is over PCT (cgroup v2)\n"
	"        max-behind-one-pct=PCT  over PCT of its waits are behind one other\n"
	"                                cgroup\n"
	"                         WHICH: a path glob (/kubepods/*/pod*), unit=GLOB,\n"
	"                         pod=GLOB or container=GLOB\n"
	"  -i, --interval DUR     the figures are kept per interval (default 1s)\n"
	"      --keep DUR         how far back to keep (default 5m)\n"
	"      --memory SIZE      keep at most this much (default 64M). The oldest go\n"
	"                         first\n"
	"      --before DUR       an incident's window before it fired (default 1m, at\n"
	"                         most --keep)\n"
	"      --after DUR        its window after it fired, recorded before it is\n"
	"                         written (default 10s)\n"
	"      --rate-limit DUR   one incident per rule and cgroup in DUR (default 10m)\n"
	"      --dir DIR          where incidents go (default " WATCH_DIR_DEFAULT ")\n"
	"      --max-incidents N  keep the newest N (default 100)\n"
	"      --long-wait DUR    each wait this long or longer is kept one by one\n"
	"                         (default 10ms)\n"
	"      --pid-file FILE    where a running watch writes its pid (default\n"
	"                         " WATCH_PID_DEFAULT ")\n"
	"      --dump             ask the running watch for an incident now, and print\n"
	"                         its path\n"
	"      --cgroup PATH      only this cgroup and its descendants (repeatable)\n"
	"      --max-cgroups N    size of the per-cgroup map (default 1024)\n"
	"      --sched-backend B, --throttle-backend B\n"
	"                         as for top\n"
	PRIORITY_HELP
	"  -q, --quiet            no start-up line on stderr\n"
	"  -v, --verbose          libbpf's messages, and the recorder's state each\n"
	"                         interval, on stderr\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched watch -t max-throttled-run=5 -t 'max-runq-p99=20ms@/kubepods/*'\n"
	"  cgsched watch --dump\n";

struct watch_opts {
	struct common_opts c;
	struct watch_cfg w;
	struct trigger trig[WATCH_MAX_TRIGGERS];
	const char *dir, *pid_file;
	uint64_t max_incidents;
	bool dump, quiet, before_set;
};

static int watch_opt(void *ctx, int c, const char *arg)
{
	struct watch_opts *o = ctx;
	char err[256];

	switch (c) {
	case 't':
		if (o->w.ntrig == WATCH_MAX_TRIGGERS) {
			cgs_err("--trigger: at most %d", WATCH_MAX_TRIGGERS);
			return OPT_BAD;
		}
		if (trigger_parse(arg, &o->trig[o->w.ntrig], err, sizeof(err))) {
			cgs_err("--trigger %s: %s", arg, err);
			return OPT_BAD;
		}
		o->w.ntrig++;
		return OPT_TAKEN;
	case 'i':
		return opt_duration("-i", arg, 1000000000ULL, 100000000ULL, 60000000000ULL,
				    "from 100ms to 1m (e.g. 1, 500ms, 2s)", &o->w.interval_ns);
	case OPT_KEEP:
		return opt_duration("--keep", arg, 1000000000ULL, 10000000000ULL, 86400000000000ULL,
				    "from 10s to 24h (e.g. 5m)", &o->w.keep_ns);
	case OPT_BEFORE:
		o->before_set = true;
		return opt_duration("--before", arg, 1000000000ULL, 1000000000ULL, 86400000000000ULL,
				    "from 1s to 24h, at most --keep (e.g. 1m)", &o->w.before_ns);
	case OPT_AFTER:
		return opt_duration("--after", arg, 1000000000ULL, 0, 3600000000000ULL, "from 0 to 1h (e.g. 10s)",
				    &o->w.after_ns);
	case OPT_RATE:
		return opt_duration("--rate-limit", arg, 1000000000ULL, 0, 86400000000000ULL,
				    "from 0 to 24h (e.g. 10m)", &o->w.rate_ns);
	case OPT_MEMORY:
		if (parse_size(arg, &o->w.memory) || o->w.memory < (256 << 10) || o->w.memory > (64ULL << 30)) {
			cgs_err("--memory %s: expected a size from 256K to 64G (e.g. 64M)", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case OPT_MAX_INC:
		if (parse_u64(arg, 1, 100000, &o->max_incidents)) {
			cgs_err("--max-incidents %s: expected a whole number from 1 to 100000", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case OPT_DIR:
		o->dir = arg;
		return OPT_TAKEN;
	case OPT_PID_FILE:
		o->pid_file = arg;
		return OPT_TAKEN;
	case OPT_DUMP:
		o->dump = true;
		return OPT_TAKEN;
	case 'q':
		o->quiet = true;
		return OPT_TAKEN;
	}
	return OPT_NOT_MINE;
}

static volatile sig_atomic_t dump_asked;

static void on_usr1(int sig)
{
	(void)sig;
	dump_asked = 1;
}

/*
 * --dump: SIGUSR1 to the running watch, and the new incident's path once it
 * is there. The watch is the process that holds the pid file's lock, as
 * the kernel says (F_GETLK): the pid in a file that a killed watch left
 * may be another process's by now.
 */
static int dump(const struct watch_opts *o)
{
	static char before[1024][256], after[1024][256];
	struct incident_dir d = { .dir = (char *)o->dir, .fd = -1 };
	char text[32] = "", shown[160];
	int fd = open(o->pid_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	bool held;
	ssize_t n;
	size_t nb;
	long pid;

	if (fd < 0 && errno == EACCES) {
		cgs_err("--dump: %s: %s; run --dump as root, as the watch runs", o->pid_file, strerror(errno));
		return CGS_EXIT_USAGE;
	}
	if (fd < 0) {
		cgs_err("--dump: no cgsched watch running (%s: %s); start one, or give its --pid-file", o->pid_file,
			strerror(errno));
		return CGS_EXIT_USAGE;
	}
	n = pread(fd, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	text[strcspn(text, "\n")] = '\0';
	held = !fcntl(fd, F_GETLK, &l) && l.l_type != F_UNLCK && l.l_pid > 0;
	close(fd);
	if (!held) {
		cgs_err("--dump: no cgsched watch running (%s names %s%s, but no watch holds it: one that was killed "
			"left it); start one, or give its --pid-file", o->pid_file, *text ? "pid " : "no pid",
			*text ? text_escape(text, shown, sizeof(shown)) : "");
		return CGS_EXIT_USAGE;
	}
	pid = l.l_pid;
	nb = incident_list(&d, before, 1024);
	if (kill((pid_t)pid, SIGUSR1)) {
		cgs_err("--dump: cgsched watch %ld: %s", pid, strerror(errno));
		return CGS_EXIT_USAGE;
	}
	/* Written at its next interval (at most a minute); bounded. */
	for (int i = 0; i < 1200 && !cgs_stop; i++) {
		usleep(100000);
		size_t na = incident_list(&d, after, 1024);
		for (size_t k = 0; k < na; k++) {
			bool old = false;
			for (size_t j = 0; j < nb && !old; j++)
				old = !strcmp(after[k], before[j]);
			if (!old && strstr(after[k], "-asked-")) {
				printf("%s/%s\n", o->dir, after[k]);
				return 0;
			}
		}
	}
	cgs_err("--dump: cgsched watch %ld wrote no incident in %s within 2 minutes", pid, o->dir);
	return CGS_EXIT_FAIL;
}

static int parse(struct watch_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "trigger", required_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'i' },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "before", required_argument, NULL, OPT_BEFORE },
		{ "after", required_argument, NULL, OPT_AFTER },
		{ "rate-limit", required_argument, NULL, OPT_RATE },
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "max-incidents", required_argument, NULL, OPT_MAX_INC },
		{ "long-wait", required_argument, NULL, OPT_LONG_WAIT },
		{ "pid-file", required_argument, NULL, OPT_PID_FILE },
		{ "dump", no_argument, NULL, OPT_DUMP },
		{ "quiet", no_argument, NULL, 'q' },
		COMMON_LONG_OPTS,
		{},
	};
	const struct cmd_spec spec = {
		.name = "watch",
		.usage = usage,
		.shorts = "t:i:qvh",
		.longs = longs,
		.opt = watch_opt,
		.ctx = o,
		.common = &o->c,
		.nargs = 0,
		.adds = 't',
	};
	int err;

	common_init(&o->c);
	o->w = (struct watch_cfg){
		.interval_ns = 1000000000ULL, .keep_ns = 300000000000ULL, .before_ns = 60000000000ULL,
		.after_ns = 10000000000ULL, .rate_ns = 600000000000ULL, .memory = 64ULL << 20,
	};
	o->dir = WATCH_DIR_DEFAULT;
	o->pid_file = WATCH_PID_DEFAULT;
	o->max_incidents = 100;
	if ((err = cmd_parse(&spec, argc, argv, &(int){ 0 })))
		return err;
	if (o->before_set && o->w.before_ns > o->w.keep_ns) {
		cgs_err("--before is longer than --keep: an incident's window must be kept to be written");
		return CGS_EXIT_USAGE;
	}
	if (!o->before_set && o->w.before_ns > o->w.keep_ns)
		o->w.before_ns = o->w.keep_ns;
	/* --long-wait is the common option's (top's and record's with --timeline): always on here. */
	o->c.so.tc.long_wait_ns = o->c.long_wait_ns ? o->c.long_wait_ns : 10000000ULL;
	o->w.trig = o->trig;
	if (triggers_need(o->trig, o->w.ntrig, TRIG_BEHIND_ONE))
		o->c.so.tc.why = o->w.why = true; /* the waits' causes: its cost only when a rule needs them */
	return 0;
}

/*
 * One watch per pid file: it holds a write lock on the file (fcntl) while
 * it runs, and --dump signals only the lock's holder. The file is made
 * mode 600, so no other user can take a lock on it. It must be a file of
 * root's alone, since it is truncated: a hard link planted at its name
 * would truncate another file. Returns the file's fd, or -EBUSY with the
 * holder's pid in *holder, -EPERM for a file not ours alone, or -errno.
 */
static int pid_lock(const char *path, long *holder)
{
	char dir[4096], text[32];
	int n = snprintf(text, sizeof(text), "%ld\n", (long)getpid()), fd = -1, err;

	*holder = 0;
	/* /run/cgsched may not be there yet (systemd's RuntimeDirectory makes it for the unit). */
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
	/* A watch that ends removes the file: one opened just before that is no one's, and is opened again. */
	for (int tries = 0; tries < 100; tries++) {
		struct stat st, now;
		struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

		if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
			return -errno;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 || !stat_ours_alone(&st)) {
			err = -EPERM;
			goto fail;
		}
		if (fcntl(fd, F_SETLK, &l)) {
			err = errno == EAGAIN || errno == EACCES ? -EBUSY : -errno;
			l = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
			if (err == -EBUSY && !fcntl(fd, F_GETLK, &l) && l.l_type != F_UNLCK)
				*holder = l.l_pid;
			goto fail;
		}
		if (stat(path, &now) || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
			close(fd);
			fd = -1;
			continue;
		}
		if (fchmod(fd, 0600) || ftruncate(fd, 0) || pwrite(fd, text, (size_t)n, 0) != n) {
			err = -errno;
			unlink(path); /* while the lock is held (see pid_unlock) */
			goto fail;
		}
		return fd;
	}
	return -EAGAIN;
fail:
	if (fd >= 0)
		close(fd);
	return err;
}

/* At the end: the name goes first, while the lock is still held (see pid_lock). */
static void pid_unlock(const char *path, int fd)
{
	unlink(path);
	close(fd);
}

int cmd_watch(int argc, char **argv)
{
	struct watch_opts o = {};
	struct session s;
	struct kstat_src ks = {};
	struct psi_track pt = {};
	struct watch w;
	struct snapshot prev = {}, cur = {};
	struct refresh f = {};
	struct cg_pending pend = { 0 };
	const char *why = NULL;
	uint64_t deadline;
	long holder;
	int err, rc, pid_fd = -1;
	bool opened = false, watching = false, have_prev = false;

	/* From the first line: a dump asked for during start-up is not a kill. */
	signal(SIGUSR1, on_usr1);
	if ((err = parse(&o, argc, argv)))
		return err;
	if (o.dump)
		return dump(&o);
	if ((err = require_root("tracing the scheduler needs CAP_BPF and CAP_PERFMON")))
		return err;
	if ((err = session_open(&s, &o.c.so)))
		return err;
	opened = true;
	rc = CGS_EXIT_USAGE;
	if (triggers_need(o.trig, o.w.ntrig, TRIG_PSI_SOME) && s.fs.version != 2) {
		cgs_err("--trigger max-psi-some-pct: the cgroups' cpu.pressure is cgroup v2's; this host has the cpu "
			"controller on v1 (use the other rules)");
		goto out;
	}
	/*
	 * After the checks of the kernel: a bad run makes no directory and
	 * leaves no pid file (the pid file first: it is the one removed again).
	 */
	pid_fd = pid_lock(o.pid_file, &holder);
	if (pid_fd < 0) {
		if (pid_fd == -EBUSY && holder > 0)
			cgs_err("--pid-file %s: cgsched watch %ld is running with it; stop it first, or give another "
				"--pid-file", o.pid_file, holder);
		else if (pid_fd == -EBUSY)
			cgs_err("--pid-file %s: another cgsched watch is running with it; stop it first, or give another "
				"--pid-file", o.pid_file);
		else if (pid_fd == -EPERM)
			cgs_err("--pid-file %s: not a file of root's alone (a hard link, another owner, or writable by "
				"others): remove it, or give another --pid-file", o.pid_file);
		else
			cgs_err("--pid-file %s: cannot write it: %s", o.pid_file, strerror(-pid_fd));
		goto out;
	}
	watching = true; /* watch_close undoes a failed watch_open too */
	if ((err = watch_open(&w, &o.w, &s, o.dir, (unsigned)o.max_incidents, &why))) {
		if (err == -EPERM && why)
			cgs_err("--dir %s: %s", o.dir, why);
		else
			cgs_err("--dir %s: %s: %s", o.dir, why ? why : "cannot use it", strerror(-err));
		goto out;
	}
	kstat_src_open(&ks, &s.fs, KSTAT_AUTO);
	kstat_src_prime(&ks);
	if (triggers_need(o.trig, o.w.ntrig, TRIG_PSI_SOME)) {
		psi_track_start(&pt, &s.fs, (const char *const *)s.filter_paths, s.nfilter);
		w.psi = &pt;
	}
	if (!getenv("JOURNAL_STREAM"))
		openlog("cgsched-watch", LOG_PID, LOG_DAEMON);
	if (!o.quiet) {
		char desc[512], k[16], b[16], a[16];
		fprintf(stderr,
			"cgsched: tracing %d CPUs, %s; watching: %zu trigger%s, keeping %s (at most %llu MB), "
			"incidents (%s before, %s after) in %s; SIGUSR1 for one now, SIGTERM or Ctrl-C to stop\n",
			s.tr.ncpus, session_describe(&s, desc, sizeof(desc)), o.w.ntrig, o.w.ntrig == 1 ? "" : "s",
			fmt_duration(k, sizeof(k), o.w.keep_ns), (unsigned long long)(o.w.memory >> 20),
			fmt_duration(b, sizeof(b), o.w.before_ns), fmt_duration(a, sizeof(a), o.w.after_ns), o.dir);
	}
	if (w.dir.stale)
		cgs_warn("%s: removed %llu half-written incidents of an earlier watch", o.dir,
			 (unsigned long long)w.dir.stale);
	rc = 0; /* a failure to trace: non-zero, so a unit with Restart=on-failure starts it again */
	deadline = s.tr.attached_ns;
	for (;;) {
		deadline += o.w.interval_ns;
		if (!session_sleep_until(&s, deadline))
			break;
		/* The reads and the refresh reuse their arrays, interval after interval. */
		if ((err = snapshot_take(&s.tr, &cur, &(struct snapshot_how){ .prev = have_prev ? &prev : &s.base }))) {
			cgs_err("reading the BPF maps failed: %s", strerror(-err));
			rc = CGS_EXIT_FAIL;
			break;
		}
		const struct refresh_opts ro = { .ks = &ks, .why = o.c.so.tc.why };
		struct episode_log el;
		tracer_pending(&s.tr, &pend); /* out of memory: none, runs closed as before */
		tracer_take_episodes(&s.tr, &el);
		if (!refresh_remake(&f, &s, &ro, have_prev ? &prev : &s.base, &cur))
			watch_interval(&w, &f, el.e, el.n, &pend);
		free(el.e);
		snapshot_swap(&prev, &cur);
		have_prev = true;
		if (dump_asked) {
			dump_asked = 0;
			watch_ask(&w);
		}
		watch_due(&w, prev.t_ns, false); /* prev: the read just taken */
		if (cgs_verbose) {
			char st[1024];
			watch_status(&w, st, sizeof(st));
			cgs_debug("%s", st);
		}
	}
	/* Stopped: the incidents under way are written with what there is. */
	watch_due(&w, now_ns(), true);
	char st[1024];
	watch_status(&w, st, sizeof(st));
	if (!o.quiet)
		fprintf(stderr, "cgsched: watch stopped: %s\n", st);
out:
	cg_pending_free(&pend);
	refresh_free(&f);
	snapshot_free(&cur);
	snapshot_free(&prev);
	if (watching)
		watch_close(&w);
	psi_track_free(&pt);
	kstat_src_close(&ks);
	if (opened)
		session_close(&s);
	if (pid_fd >= 0)
		pid_unlock(o.pid_file, pid_fd);
	return rc;
}
