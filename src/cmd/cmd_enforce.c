// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cgsched enforce FILE: keep a limits file in force. Every interval: apply
 * it to matching cgroups that appeared, put back values someone else
 * changed, and drive soft caps from the run-queue latency the BPF programs
 * measure. SIGHUP reloads the file; SIGTERM/SIGINT restore the values found
 * at start. Every change is logged with its reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/commands.h"
#include "cmd/exporter.h"
#include "out/hist.h"
#include "limits/limits_file.h"
#include "out/report.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched enforce FILE [-i INTERVAL] [--contention-p99 DUR] [--min-waits N]\n"
	"Keep the limits of FILE (docs/limits.md) in force until SIGTERM or Ctrl-C:\n"
	"applies them to matching cgroups that appear later, restores values someone\n"
	"else changed, and enforces soft caps: while another cgroup's run-queue p99\n"
	"is above --contention-p99, a soft-capped group is held to its soft_max; two\n"
	"quiet intervals later the cap is lifted. SIGHUP reloads FILE (a bad file\n"
	"keeps the old one). On exit, every value found at start is restored.\n"
	"\n"
	"  -i, --interval DUR      how often (default 1s)\n"
	"  --contention-p99 DUR    run-queue p99 that means contention (default 2ms)\n"
	"  --min-waits N           waits a cgroup needs in an interval to count (default 20)\n"
	"  --sched-backend B, --throttle-backend B   as for top\n"
	"  --priority P            as for top (with --listen, the HTTP thread too)\n"
	"  -v, --verbose\n"
	"\n"
	"With --listen, also serves /metrics as cgsched export does (one daemon\n"
	"enforces and exports; docs/metrics.md):\n"
	EXPORT_OPTS_HELP
	"\n"
	"EXAMPLES\n"
	"  cgsched enforce /etc/cgsched/limits.ini -i 2s\n"
	"  cgsched enforce /etc/cgsched/limits.ini --listen 127.0.0.1:9863\n";


struct managed {
	char rel[PATH_MAX];
	char file[32];
	char orig[64];   /* found at start: restored on exit */
	char want[64];   /* what we last set */
	bool seen;       /* still desired in this pass */
};

struct soft {
	char rel[PATH_MAX];
	uint64_t id;
	bool capped;
	int quiet;       /* intervals without contention while capped */
	char why[PATH_MAX + 64];
};

struct enforcer {
	struct session s;
	const char *path;
	struct limits_file lf;
	struct managed *m;
	size_t n, cap;
	struct soft *soft;
	size_t nsoft, softcap;
	uint64_t threshold_ns;
	uint64_t min_waits;
	char self[PATH_MAX];  /* cgsched's own cgroup: its waits are not contention */
	const char *reason;  /* for the changes being made */
};

static volatile sig_atomic_t got_hup;

static void on_hup(int sig)
{
	got_hup = 1;
}

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

static struct managed *find_m(struct enforcer *e, const char *rel, const char *file)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->m[i].rel, rel) && !strcmp(e->m[i].file, file))
			return &e->m[i];
	return NULL;
}

static struct soft *find_soft(struct enforcer *e, const char *rel)
{
	for (size_t i = 0; i < e->nsoft; i++)
		if (!strcmp(e->soft[i].rel, rel))
			return &e->soft[i];
	return NULL;
}

/* Soft-capped targets: make sure each has a state. */
static int note_soft(void *ctx, const char *rel, const struct limit_rule *r, bool exists)
{
	struct enforcer *e = ctx;
	uint64_t id;

	if (!r->has_soft || !exists || find_soft(e, rel) || cgfs_id(&e->s.fs, rel, &id))
		return 0;
	if (e->nsoft == e->softcap) {
		size_t c = e->softcap ? e->softcap * 2 : 8;
		struct soft *n = realloc(e->soft, c * sizeof(*n));
		if (!n)
			return -ENOMEM;
		e->soft = n;
		e->softcap = c;
	}
	struct soft *s = &e->soft[e->nsoft++];
	memset(s, 0, sizeof(*s));
	snprintf(s->rel, sizeof(s->rel), "%s", rel);
	s->id = id;
	return 0;
}

/*
 * Contention: a cgroup outside the soft-capped one (and its descendants)
 * whose run-queue p99 in the interval was above the threshold. The root
 * cgroup (kernel threads, everything unmanaged) and cgsched's own cgroup do
 * not count: cgsched waiting behind a burner is not a neighbour's demand.
 */
static void judge(struct enforcer *e, const struct report *r)
{
	char a[16], b[16];

	for (size_t i = 0; i < e->nsoft; i++) {
		struct soft *s = &e->soft[i];
		const struct row *worst = NULL;
		size_t l = strlen(s->rel);
		for (size_t k = 0; k < r->n; k++) {
			const struct row *w = &r->rows[k];
			if (!w->path || w->s->c.runq_count < e->min_waits || w->runq_p99_ns <= e->threshold_ns)
				continue;
			if (!strcmp(w->path, s->rel) || (!strncmp(w->path, s->rel, l) && w->path[l] == '/'))
				continue;
			if (!strcmp(w->path, "/") || !strcmp(w->path, e->self))
				continue;
			if (!worst || w->runq_p99_ns > worst->runq_p99_ns)
				worst = w;
		}
		if (worst) {
			s->quiet = 0;
			if (!s->capped) {
				s->capped = true;
				snprintf(s->why, sizeof(s->why), "soft cap on: %s run-queue p99 %s > %s", worst->path,
					 fmt_duration(a, sizeof(a), worst->runq_p99_ns),
					 fmt_duration(b, sizeof(b), e->threshold_ns));
			}
		} else if (s->capped && ++s->quiet >= 2) {
			s->capped = false;
			snprintf(s->why, sizeof(s->why), "soft cap lifted: no contention for 2 intervals");
		}
	}
}

/* One pass over the limits file's targets; rel and rule: the target at hand. */
struct pass {
	struct enforcer *e;
	bool first;
	const char *rel;
	const struct limit_rule *rule;
};

static void want_value(void *ctx, const char *file, const char *value);

static int pass_target(void *ctx, const char *rel, const struct limit_rule *r, bool exists)
{
	struct pass *p = ctx;
	uint64_t id;

	if (!exists) {
		int err;
		bool enabled;
		if (!r->create)
			return 0;
		if ((err = cgfs_enable_cpu_in_parent(&p->e->s.fs, rel, &enabled)) ||
		    ((err = cgfs_mkdir(&p->e->s.fs, rel)) && err != -EEXIST)) {
			logline("%s: cannot create: %s", rel, strerror(-err));
			return 0;
		}
		logline("%s: created (create = yes)", rel);
	} else if (cgfs_id(&p->e->s.fs, rel, &id)) {
		return 0;
	}
	p->rel = rel;
	p->rule = r;
	struct soft *s = find_soft(p->e, rel);
	p->e->reason = s && s->why[0] ? s->why : NULL;
	rule_values(r, p->e->s.fs.version, s && s->capped, want_value, p);
	if (s)
		s->why[0] = 0;
	return 0;
}

/* One desired value: take it under management, and put it in force. */
static void want_value(void *ctx, const char *file, const char *value)
{
	struct pass *p = ctx;
	struct enforcer *e = p->e;
	struct managed *m = find_m(e, p->rel, file);
	char now[64], fresh[PATH_MAX + 32] = "";
	int err;

	if (cgfs_read(&e->s.fs, p->rel, file, now, sizeof(now)) < 0)
		return;
	now[strcspn(now, "\n")] = 0;
	if (!m) {
		if (e->n == e->cap) {
			size_t c = e->cap ? e->cap * 2 : 16;
			struct managed *n = realloc(e->m, c * sizeof(*n));
			if (!n)
				return;
			e->m = n;
			e->cap = c;
		}
		m = &e->m[e->n++];
		memset(m, 0, sizeof(*m));
		if (!p->first)
			snprintf(fresh, sizeof(fresh), "new, matches [%s]", p->rule->pattern);
		snprintf(m->rel, sizeof(m->rel), "%s", p->rel);
		snprintf(m->file, sizeof(m->file), "%s", file);
		snprintf(m->orig, sizeof(m->orig), "%s", now);
		snprintf(m->want, sizeof(m->want), "%s", now);
	}
	m->seen = true;
	if (!strcmp(now, value)) {
		snprintf(m->want, sizeof(m->want), "%s", value);
		return;
	}
	const char *why = e->reason;
	if (!why && fresh[0])
		why = fresh;
	if (!why)
		why = p->first ? "in the limits file" :
		      strcmp(m->want, value) ? "the limits file changed" :
		      "someone else changed it: restored";
	if ((err = cgfs_write(&e->s.fs, p->rel, file, value)))
		logline("%s %s: %s -> %s failed: %s", p->rel, file, now, value, strerror(-err));
	else
		logline("%s %s: %s -> %s (%s)", p->rel, file, now, value, why);
	snprintf(m->want, sizeof(m->want), "%s", value);
}

static void restore(struct enforcer *e, struct managed *m, const char *why)
{
	char now[64];
	int err;

	if (cgfs_read(&e->s.fs, m->rel, m->file, now, sizeof(now)) < 0)
		return; /* the cgroup is gone */
	now[strcspn(now, "\n")] = 0;
	if (!strcmp(now, m->orig))
		return;
	if ((err = cgfs_write(&e->s.fs, m->rel, m->file, m->orig)))
		logline("%s %s: restoring %s failed: %s", m->rel, m->file, m->orig, strerror(-err));
	else
		logline("%s %s: %s -> %s (%s)", m->rel, m->file, now, m->orig, why);
}

static void enforce_pass(struct enforcer *e, bool first)
{
	struct pass p = { .e = e, .first = first };

	for (size_t i = 0; i < e->n; i++)
		e->m[i].seen = false;
	limits_targets(&e->lf, &e->s.fs, note_soft, e);
	limits_targets(&e->lf, &e->s.fs, pass_target, &p);
	/* Files no longer in the file (after a reload): back to what they were. */
	for (size_t i = 0; i < e->n;) {
		if (e->m[i].seen) {
			i++;
			continue;
		}
		restore(e, &e->m[i], "no longer in the limits file");
		e->m[i] = e->m[--e->n];
	}
}

static void reload(struct enforcer *e)
{
	struct limits_file lf;
	char err[PATH_MAX + 256];

	if (limits_file_load(e->path, &e->s.fs, &lf, err, sizeof(err))) {
		logline("reload failed, keeping the limits in force: %s", err);
		return;
	}
	limits_file_free(&e->lf);
	e->lf = lf;
	logline("reloaded %s: %zu sections", e->path, lf.n);
	enforce_pass(e, false);
}

struct enforce_opts {
	struct enforcer *e;
	uint64_t interval;
	struct exporter_opts x;
	const char *export_opt;   /* an exporter option given, for the error without --listen */
};

static int enforce_opt(void *ctx, int c, const char *arg)
{
	struct enforce_opts *o = ctx;

	switch (c) {
	case 'i':
		if (parse_duration_ns(arg, 1000000000ULL, &o->interval) || o->interval < 100000000ULL ||
		    o->interval > 3600000000000ULL) {
			cgs_err("-i %s: expected a duration from 100ms to 1h", arg);
			return -1;
		}
		return 0;
	case OPT_CONTENTION:
		if (parse_duration_ns(arg, 1000000, &o->e->threshold_ns) || !o->e->threshold_ns) {
			cgs_err("--contention-p99 %s: expected a duration (bare numbers are ms)", arg);
			return -1;
		}
		return 0;
	case OPT_MIN_WAITS:
		if (parse_u64(arg, 1, 1000000, &o->e->min_waits)) {
			cgs_err("--min-waits %s: expected a whole number from 1", arg);
			return -1;
		}
		return 0;
	case OPT_WEB_CONFIG:
	case OPT_GRACE:
	case OPT_TOP_PREEMPTORS:
		o->export_opt = c == OPT_WEB_CONFIG ? "--web-config" : c == OPT_GRACE ? "--grace" : "--top-preemptors";
		break;
	}
	return exporter_opt(&o->x, c, arg);
}

int cmd_enforce(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "contention-p99", required_argument, NULL, OPT_CONTENTION },
		{ "min-waits", required_argument, NULL, OPT_MIN_WAITS },
		EXPORT_LONG_OPTS,
		COMMON_LONG_OPTS,
		{},
	};
	struct enforcer e = { .threshold_ns = 2000000, .min_waits = 20 };
	struct common_opts co;
	struct snapshot prev = {}, cur, d;
	struct report r;
	struct enforce_opts eo = { .e = &e, .interval = 1000000000ULL };
	const struct cmd_spec spec = { "enforce", usage, "i:vh", longs, enforce_opt, &eo, &co, NULL, 1, "one limits file" };
	char err[PATH_MAX + 256];
	int first, k, ret = CGS_EXIT_USAGE;

	struct exporter *x = NULL;

	common_init(&co);
	exporter_opts_init(&eo.x);
	if ((k = cmd_parse(&spec, argc, argv, &first)))
		return k;
	if (eo.export_opt && !eo.x.listen) {
		cgs_err("enforce: %s is for serving /metrics: give --listen ADDR:PORT too", eo.export_opt);
		return CGS_EXIT_USAGE;
	}
	uint64_t interval = eo.interval;
	if (co.so.ncgroups) {
		cgs_err("enforce: --cgroup does not apply: contention is judged across every cgroup");
		return CGS_EXIT_USAGE;
	}
	e.path = argv[first];
	if ((k = require_root("writing cgroup files and loading BPF programs")))
		return k;
	/* Check the file before tracing anything. */
	memset(&e.s, 0, sizeof(e.s));
	if ((k = cgfs_open_or_explain(&e.s.fs)))
		return k;
	k = limits_file_load(e.path, &e.s.fs, &e.lf, err, sizeof(err));
	cgfs_close(&e.s.fs);
	if (k) {
		cgs_err("%s", err);
		return CGS_EXIT_USAGE;
	}
	/* The port and the web config before anything is traced or changed. */
	if (eo.x.listen && (k = exporter_open(&x, &eo.x))) {
		limits_file_free(&e.lf);
		return k;
	}
	if ((k = session_open(&e.s, &co.so))) {
		session_close(&e.s);
		exporter_close(x);
		limits_file_free(&e.lf);
		return k;
	}
	if (x)
		exporter_attach(x, &e.s, false);
	cgfs_self(&e.s.fs, e.self, sizeof(e.self));
	struct sigaction sa = { .sa_handler = on_hup };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	logline("enforcing %s (%zu sections), cgroup v%d at %s, every %.2fs; soft caps when a run-queue p99 > %.2fms",
		e.path, e.lf.n, e.s.fs.version, e.s.fs.mnt, interval / 1e9, e.threshold_ns / 1e6);
	if (x)
		logline("serving %s", exporter_url(x));
	exporter_lock(x);
	enforce_pass(&e, true);
	exporter_unlock(x);
	bool have_prev = false;
	uint64_t deadline = now_ns();
	for (;;) {
		deadline += interval;
		if (!session_sleep_until(&e.s, deadline) && !got_hup)
			break;
		exporter_tick(x);
		/* The maps and the cgroup cache are the scrapes' too: one of us at a time. */
		exporter_lock(x);
		if (got_hup) {
			got_hup = 0;
			reload(&e);
			exporter_unlock(x);
			continue;
		}
		if (snapshot_read(&e.s.tr, &cur, false, have_prev ? &prev : NULL)) {
			exporter_unlock(x);
			continue;
		}
		if (!snapshot_delta(have_prev ? &prev : NULL, &cur, &d) &&
		    !report_build(&r, &d, interval, false, NULL)) {
			report_resolve(&r, &e.s.fs, 0);
			judge(&e, &r);
			report_free(&r);
		}
		snapshot_free(&d);
		snapshot_free(&prev);
		prev = cur;
		have_prev = true;
		/* Episodes are not used here; keep the ring buffer's log from growing. */
		tracer_discard_episodes(&e.s.tr);
		enforce_pass(&e, false);
		exporter_unlock(x);
	}
	/* No scrape from here on: the restore below runs alone. */
	exporter_close(x);
	logline("stopping: restoring the values found at start");
	/* Newest first: the kernel refuses a quota below its burst, so undo in reverse. */
	for (size_t i = e.n; i-- > 0;)
		restore(&e, &e.m[i], "restored at exit");
	ret = 0;
	snapshot_free(&prev);
	free(e.m);
	free(e.soft);
	limits_file_free(&e.lf);
	session_close(&e.s);
	return ret;
}
