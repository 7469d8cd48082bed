// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cgsched enforce FILE: keep a limits file in force. Every interval: apply
 * it to matching cgroups that appeared, put back values someone else
 * changed, and drive soft caps from the run-queue latency the BPF programs
 * measure. SIGHUP reloads the file; SIGTERM/SIGINT restore the values found
 * at start. Every change is logged with its reason. The values found are
 * journalled on disk before the first change to each file, so that after a
 * SIGKILL the next start (or apply --restore) can put them back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "exporter/exporter.h"
#include "cmd/journal_restore.h"
#include "report/hist.h"
#include "limits/enforcer.h"
#include "limits/journal.h"
#include "limits/limits_file.h"
#include "report/report.h"
#include "lib/stop.h"
#include "lib/util.h"
#include "session/refresh.h"

static const char usage[] =
	"Usage: cgsched enforce FILE [-i INTERVAL] [--contention-p99 DUR]\n"
	"                       [--min-waits N] [--journal JOURNAL]\n"
	"Keep the limits of FILE (docs/limits.md) in force until SIGTERM or Ctrl-C.\n"
	"enforce applies them to matching cgroups that appear later, and puts back\n"
	"values that someone else changed. It also drives soft caps: while another\n"
	"cgroup's run-queue p99 is above --contention-p99, a soft-capped group is\n"
	"held to its soft_max. Two quiet intervals later the cap is lifted. SIGHUP\n"
	"reloads FILE (a bad file keeps the old one). On exit, every value found at\n"
	"the start is put back.\n"
	"\n"
	"Before enforce first changes a file, it writes the old value to a journal,\n"
	"and removes the journal after a clean exit. After a SIGKILL, an OOM kill or\n"
	"a power cut, the next enforce puts the journal's values back first (so does\n"
	"'cgsched apply --restore JOURNAL'). One enforce runs per journal: a second\n"
	"is refused. Drops (events the BPF side could not record) are logged in each\n"
	"interval that has some.\n"
	"\n"
	"  -i, --interval DUR     how often to look (default 1s)\n"
	"      --contention-p99 DUR\n"
	"                         the run-queue p99 that means contention (default 2ms)\n"
	"      --min-waits N      the waits a cgroup needs in an interval to count\n"
	"                         (default 20)\n"
	"      --journal JOURNAL  the journal (default " JOURNAL_DEFAULT ").\n"
	"                         Its lock is JOURNAL.lock\n"
	"      --sched-backend B, --throttle-backend B, --max-cgroups N\n"
	"                         as for top. There is no --cgroup: contention is\n"
	"                         judged across every cgroup\n"
	"      --priority P       as for top; with --listen, the HTTP thread too\n"
	"  -v, --verbose          libbpf's messages and debug lines on stderr\n"
	"\n"
	"With --listen, enforce also serves /metrics as 'cgsched export' does, so one\n"
	"daemon enforces and exports (docs/metrics.md):\n"
	EXPORT_OPTS_HELP
	"\n"
	"EXAMPLES\n"
	"  cgsched enforce /etc/cgsched/limits.ini -i 2s\n"
	"  cgsched enforce /etc/cgsched/limits.ini --listen 127.0.0.1:9863\n"
	"  cgsched enforce /etc/cgsched/batch.ini --journal /run/cgsched/batch.journal\n";


static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...)
{
	char ts[16], line[2 * PATH_MAX + 256], esc[8 * PATH_MAX];
	time_t t = time(NULL);
	va_list ap;

	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Cgroup names are anyone's: escaped, none can forge a log line or move the cursor. */
	printf("%s %s\n", ts, text_escape(line, esc, sizeof(esc)));
	fflush(stdout);
}

static void logline_str(const char *line)
{
	logline("%s", line);
}

static void say_log(void *ctx, bool item, const char *line)
{
	logline("%s%s", line, item ? " (from the journal)" : "");
}

/*
 * Events the BPF side could not record in the interval, as top shows them,
 * when they mean contention may go unseen (drops_notable: a quiet host's
 * one unpaired wait a second is not news).
 */
static void log_drops(const uint64_t *all, const struct report *r)
{
	char line[512];
	size_t n = 0;
	uint64_t drops[CGS_DROP__COUNT], waits = 0;

	for (size_t i = 0; i < r->n; i++)
		waits += r->rows[i].s->c.runq_count;
	if (!drops_notable(all, waits, drops))
		return;
	for (int i = 0; i < CGS_DROP__COUNT && n < sizeof(line); i++)
		if (drops[i])
			n += snprintf(line + n, sizeof(line) - n, " %s=%llu", drop_name(i), (unsigned long long)drops[i]);
	logline("drops:%s%s", line,
		drops[CGS_DROP_CG_FULL] ? " (cgroups past --max-cgroups are not traced: their contention goes unseen; raise it)" : "");
}

struct enforce_opts {
	uint64_t threshold_ns, min_waits;
	uint64_t interval;
	struct exporter_opts x;
	const char *export_opt;   /* an exporter option given, for the error without --listen */
	const char *journal;
};

static int enforce_opt(void *ctx, int c, const char *arg)
{
	struct enforce_opts *o = ctx;

	switch (c) {
	case 'i':
		return opt_duration("-i", arg, 1000000000ULL, 100000000ULL, 3600000000000ULL, "from 100ms to 1h",
				    &o->interval);
	case OPT_CONTENTION:
		return opt_duration("--contention-p99", arg, 1000000ULL, 1, 0, "(bare numbers are ms)",
				    &o->threshold_ns);
	case OPT_MIN_WAITS:
		if (parse_u64(arg, 1, 1000000, &o->min_waits)) {
			cgs_err("--min-waits %s: expected a whole number from 1", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case OPT_JOURNAL:
		if (!*arg || arg[strlen(arg) - 1] == '/' || strlen(arg) + 32 >= PATH_MAX) {
			cgs_err("--journal %s: expected a file's path", arg);
			return OPT_BAD;
		}
		o->journal = arg;
		return OPT_TAKEN;
	case OPT_WEB_CONFIG:
	case OPT_GRACE:
	case OPT_TOP_PREEMPTORS:
		o->export_opt = c == OPT_WEB_CONFIG ? "--web-config" : c == OPT_GRACE ? "--grace" : "--top-preemptors";
		break;
	}
	return exporter_opt(&o->x, c, arg);
}

/* The interval's run-queue figures, as the engine weighs them: path, waits, p99. */
static void judge_report(struct enforcer *e, const struct report *r)
{
	struct enf_load *rows = calloc(r->n ? r->n : 1, sizeof(*rows));

	if (!rows) {
		logline("this interval's contention is not judged: out of memory");
		return;
	}
	for (size_t i = 0; i < r->n; i++)
		rows[i] = (struct enf_load){ r->rows[i].path, r->rows[i].s->c.runq_count, r->rows[i].runq_p99_ns };
	enforcer_judge(e, rows, r->n);
	free(rows);
}

static void enforcer_log(void *ctx, const char *line)
{
	(void)ctx;
	logline("%s", line);
}

/*
 * Before anything is traced or changed: check the limits file, the port and
 * the web config, and lock the journal (held until exit: the fd closes with
 * us). A journal left by a killed enforce is put back first. So the values
 * found next, and restored at our exit, are the true ones. 0 with *lock,
 * *x and lf held; else the exit status, with all of it undone (fs closed
 * either way).
 */
static int enforce_prepare(const struct enforce_opts *eo, const char *path, struct cgfs *fs, struct limits_file *lf,
			   struct exporter **x, int *lock)
{
	char err[PATH_MAX + 256];
	long holder;
	bool found;
	int k;

	*lock = -1;
	if ((k = cgfs_open_or_explain(fs)))
		return k;
	if ((k = limits_file_load(path, fs, lf, err, sizeof(err))))
		cgs_err("%s", err);
	else if (cgfs_writable_or_explain(fs, "enforce"))
		k = -1;
	if (k) {
		k = CGS_EXIT_USAGE;
		goto fail;
	}
	if (!strcmp(eo->journal, JOURNAL_DEFAULT))
		mkdir("/run/cgsched", 0755);
	if ((k = journal_lock(eo->journal, &holder)) < 0) {
		if (k == -EBUSY)
			cgs_err("enforce: another cgsched enforce (pid %ld) is running with the journal %s: one per journal "
				"(stop it, or give this one --journal FILE)", holder, eo->journal);
		else if (k == -EPERM)
			cgs_err("enforce: %s.lock is %s", eo->journal, JOURNAL_LOCK_UNSAFE);
		else
			cgs_err("enforce: cannot keep a journal at %s (%s.lock: %s): give --journal FILE in a writable directory",
				eo->journal, eo->journal, strerror(-k));
		k = CGS_EXIT_USAGE;
		goto fail;
	}
	*lock = k;
	if (eo->x.listen && (k = exporter_open(x, &eo->x)))
		goto fail;
	if ((k = journal_restore(eo->journal, fs, false, &found, say_log, NULL)))
		goto fail;
	cgfs_close(fs);
	return 0;
fail:
	exporter_close(*x);
	*x = NULL;
	if (*lock >= 0)
		close(*lock);
	*lock = -1;
	cgfs_close(fs);
	limits_file_free(lf);
	return k;
}

/*
 * One interval: its contention judged (soft caps), then the pass that
 * keeps the file in force. cur and f are kept from one interval to the
 * next, their arrays reused (snapshot_take, refresh_remake): enforce
 * runs for months.
 */
static void enforce_interval(struct enforcer *e, struct session *s, struct snapshot *prev, struct snapshot *cur,
			     struct refresh *f, bool *have_prev)
{
	int k;

	if ((k = snapshot_take(&s->tr, cur, &(struct snapshot_how){ .prev = *have_prev ? prev : &s->base }))) {
		logline("reading the BPF maps failed: %s; this interval's contention is not judged", strerror(-k));
		return;
	}
	/* Every row's path: the limits file's patterns are matched against them. */
	if (refresh_remake(f, s, &(struct refresh_opts){ 0 }, *have_prev ? prev : &s->base, cur)) {
		logline("this interval's report: out of memory; its contention is not judged");
	} else {
		log_drops(f->d.drops, &f->r);
		judge_report(e, &f->r);
	}
	snapshot_swap(prev, cur);
	*have_prev = true;
	/* Episodes are not used here; keep the ring buffer's log from growing. */
	tracer_discard_episodes(&s->tr);
	enforcer_pass(e, false);
}

/* Until a stop signal: an interval at a time, SIGHUP a reload. */
static void enforce_loop(struct enforcer *e, struct session *s, struct exporter *x, const char *path,
			 uint64_t interval)
{
	struct snapshot prev = {}, cur = {};
	struct refresh f = {};
	bool have_prev = false;
	uint64_t deadline = now_ns();

	for (;;) {
		deadline += interval;
		if (!session_sleep_until(s, deadline) && !cgs_hup)
			break;
		exporter_tick(x);
		exporter_episodes(x); /* before the interval below lets the rest go */
		/* The maps and the cgroup cache are the scrapes' too: one of us at a time. */
		exporter_lock(x);
		if (cgs_hup) {
			cgs_hup = 0;
			enforcer_reload(e, path);
			exporter_unlock(x);
			/* Unlocked: the old server's request in flight may be waiting for the lock as it stops. */
			if (x)
				exporter_reload(x, logline_str);
			continue;
		}
		enforce_interval(e, s, &prev, &cur, &f, &have_prev);
		exporter_unlock(x);
	}
	refresh_free(&f);
	snapshot_free(&cur);
	snapshot_free(&prev);
}

int cmd_enforce(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "contention-p99", required_argument, NULL, OPT_CONTENTION },
		{ "min-waits", required_argument, NULL, OPT_MIN_WAITS },
		{ "journal", required_argument, NULL, OPT_JOURNAL },
		EXPORT_LONG_OPTS,
		COMMON_LONG_OPTS,
		{},
	};
	struct enforcer e;
	struct session s = {};
	struct limits_file lf = {};
	struct common_opts co;
	struct enforce_opts eo = { .threshold_ns = ENF_THRESHOLD_NS, .min_waits = ENF_MIN_WAITS, .interval = 1000000000ULL,
				   .journal = JOURNAL_DEFAULT };
	const struct cmd_spec spec = {
		.name = "enforce",
		.usage = usage,
		.shorts = "i:vh",
		.longs = longs,
		.opt = enforce_opt,
		.ctx = &eo,
		.common = &co,
		.nargs = 1,
		.args = "one limits file",
	};
	struct exporter *x = NULL;
	int first, k, lock, ret = 0;
	bool opened = false;

	stop_catch_hup(); /* documented: a reload, never a kill, from the first line */
	common_init(&co);
	exporter_opts_init(&eo.x);
	if ((k = cmd_parse(&spec, argc, argv, &first)))
		return k;
	if (eo.export_opt && !eo.x.listen) {
		cgs_err("enforce: %s is for serving /metrics: give --listen ADDR:PORT too", eo.export_opt);
		return CGS_EXIT_USAGE;
	}
	if (co.so.ncgroups) {
		cgs_err("enforce: --cgroup does not apply: contention is judged across every cgroup");
		return CGS_EXIT_USAGE;
	}
	const char *path = argv[first];
	if ((k = require_root("writing cgroup files and loading BPF programs")))
		return k;
	if ((k = enforce_prepare(&eo, path, &s.fs, &lf, &x, &lock)))
		return k;
	if (x) /* removed cgroups' figures outlive their series' grace (noticed within 5 s) */
		co.so.tc.keep_removed_ns = eo.x.grace_ns + 10000000000ULL;
	if ((ret = session_open(&s, &co.so)))
		goto out;
	opened = true;
	enforcer_init(&e, &s.fs, &lf, eo.journal);
	e.threshold_ns = eo.threshold_ns;
	e.min_waits = eo.min_waits;
	e.log = enforcer_log;
	if (x)
		exporter_attach(x, &s, false, false, NULL);
	cgfs_self(&s.fs, e.self, sizeof(e.self));
	exporter_lock(x);
	enforcer_pass(&e, true);
	exporter_unlock(x);
	/*
	 * After the first pass: "enforcing" means the file's values are set
	 * and journalled. Said before it, a script (a test) that acted on the
	 * line could find nothing set yet, and a SIGKILL then left no journal.
	 */
	logline("enforcing %s (%zu sections), cgroup v%d at %s, every %.2fs; soft caps when a run-queue p99 > %.2fms; journal %s",
		path, e.lf.n, s.fs.version, s.fs.mnt, eo.interval / 1e9, e.threshold_ns / 1e6, e.j.path);
	if (x)
		logline("serving %s", exporter_url(x));
	enforce_loop(&e, &s, x, path, eo.interval);
	/* No scrape from here on: the restore below runs alone. */
	exporter_close(x);
	x = NULL;
	logline("stopping: restoring the values found at start");
	size_t kept = enforcer_stop(&e);
	if (kept) {
		logline("journal %s kept: %zu value%s could not be put back; 'cgsched apply --restore %s' tries again",
			e.j.path, kept, kept == 1 ? "" : "s", e.j.path);
		ret = CGS_EXIT_FAIL;
	}
	enforcer_free(&e);
out:
	exporter_close(x);
	limits_file_free(&lf);
	close(lock);
	if (opened)
		session_close(&s);
	return ret;
}
