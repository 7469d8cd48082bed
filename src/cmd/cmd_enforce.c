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
#include "cmd/exporter.h"
#include "cmd/journal_restore.h"
#include "out/hist.h"
#include "limits/journal.h"
#include "limits/limits_file.h"
#include "out/report.h"
#include "lib/stop.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched enforce FILE [-i INTERVAL] [--contention-p99 DUR] [--min-waits N]\n"
	"                       [--journal JOURNAL]\n"
	"Keep the limits of FILE (docs/limits.md) in force until SIGTERM or Ctrl-C:\n"
	"applies them to matching cgroups that appear later, restores values someone\n"
	"else changed, and enforces soft caps: while another cgroup's run-queue p99\n"
	"is above --contention-p99, a soft-capped group is held to its soft_max; two\n"
	"quiet intervals later the cap is lifted. SIGHUP reloads FILE (a bad file\n"
	"keeps the old one). On exit, every value found at start is restored.\n"
	"\n"
	"Before it first changes a file, its value is written to a journal (fsync'd,\n"
	"renamed into place), removed again after a clean exit. After a SIGKILL, an\n"
	"OOM kill or a power cut, the next enforce puts the journal's values back\n"
	"before anything else (or 'cgsched apply --restore JOURNAL' does). One enforce\n"
	"per journal: a second is refused. Drops (events the BPF side could not\n"
	"record) are logged in each interval that has some.\n"
	"\n"
	"  -i, --interval DUR      how often (default 1s)\n"
	"  --contention-p99 DUR    run-queue p99 that means contention (default 2ms)\n"
	"  --min-waits N           waits a cgroup needs in an interval to count (default 20)\n"
	"  --journal JOURNAL       the journal (default " JOURNAL_DEFAULT ";\n"
	"                          its lock: JOURNAL.lock)\n"
	"  --sched-backend B, --throttle-backend B, --max-cgroups N   as for top\n"
	"  --priority P            as for top (with --listen, the HTTP thread too)\n"
	"  -v, --verbose\n"
	"\n"
	"With --listen, also serves /metrics as cgsched export does (one daemon\n"
	"enforces and exports; docs/metrics.md):\n"
	EXPORT_OPTS_HELP
	"\n"
	"EXAMPLES\n"
	"  cgsched enforce /etc/cgsched/limits.ini -i 2s\n"
	"  cgsched enforce /etc/cgsched/limits.ini --listen 127.0.0.1:9863\n"
	"  cgsched enforce /etc/cgsched/batch.ini --journal /run/cgsched/batch.journal\n";


struct managed {
	char rel[PATH_MAX];
	uint64_t id;     /* the cgroup's: one made again under the name is not restored */
	char file[32];
	char orig[64];   /* found at start: restored on exit */
	char want[64];   /* what we last set */
	bool seen;       /* still desired in this pass */
	bool journaled;  /* orig is in the journal (it was, or is about to be, changed) */
};

struct soft {
	char rel[PATH_MAX];
	uint64_t id;
	bool capped;
	bool seen;       /* still a soft-capped target in this pass: else dropped */
	int quiet;       /* intervals without contention while capped */
	char why[PATH_MAX + 64];
};

/* A write decided in a pass, made once the journal holds the file's value. */
struct pending {
	size_t m;        /* index in enforcer.m */
	char now[64], value[64];
	char *why;
	bool added;      /* its file's value went into the journal in this pass */
	bool skip;       /* its value could not be journalled: not made */
};

struct enforcer {
	struct session s;
	const char *path;
	struct limits_file lf;
	struct managed *m;
	size_t n, cap;
	struct soft *soft;
	size_t nsoft, softcap;
	struct pending *pend;
	size_t npend, pendcap;
	struct journal j;
	uint64_t threshold_ns;
	uint64_t min_waits;
	char self[PATH_MAX];  /* cgsched's own cgroup: its waits are not contention */
	const char *reason;  /* for the changes being made */
};

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
	struct soft *s;
	uint64_t id;

	if (!r->has_soft || !exists || cgfs_id(&e->s.fs, rel, &id))
		return 0;
	if ((s = find_soft(e, rel))) {
		/* Another cgroup under the same name: its state starts afresh. */
		if (s->id != id)
			*s = (struct soft){ .id = id };
		snprintf(s->rel, sizeof(s->rel), "%s", rel);
		s->seen = true;
		return 0;
	}
	if (e->nsoft == e->softcap) {
		size_t c = e->softcap ? e->softcap * 2 : 8;
		struct soft *n = realloc(e->soft, c * sizeof(*n));
		if (!n)
			return -ENOMEM;
		e->soft = n;
		e->softcap = c;
	}
	s = &e->soft[e->nsoft++];
	memset(s, 0, sizeof(*s));
	snprintf(s->rel, sizeof(s->rel), "%s", rel);
	s->id = id;
	s->seen = true;
	return 0;
}

/* Soft-cap states of cgroups gone (or no longer soft-capped) go: the list is as long as the targets. */
static void shrink_soft(struct enforcer *e)
{
	size_t w = 0, before = e->nsoft;

	for (size_t i = 0; i < e->nsoft; i++)
		if (e->soft[i].seen)
			e->soft[w++] = e->soft[i];
	e->nsoft = w;
	if (w != before)
		cgs_debug("soft-cap states: %zu (%zu dropped: cgroups gone or no longer soft-capped)", w, before - w);
	if (w < e->softcap / 4 && e->softcap > 8) {
		/* Give the memory back after a wave of short-lived cgroups (about 8 KB each). */
		size_t c = e->softcap / 2;
		struct soft *n = realloc(e->soft, c * sizeof(*n));
		if (n) {
			e->soft = n;
			e->softcap = c;
		}
	}
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
	uint64_t id; /* rel's cgroup: which one under the name (made again: another) */
	const struct limit_rule *rule;
};

static void want_value(void *ctx, const char *file, const char *value);
static int journal_commit(struct enforcer *e);

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
	}
	if (cgfs_id(&p->e->s.fs, rel, &id))
		return 0;
	p->rel = rel;
	p->id = id;
	p->rule = r;
	struct soft *s = find_soft(p->e, rel);
	p->e->reason = s && s->why[0] ? s->why : NULL;
	rule_values(r, p->e->s.fs.version, s && s->capped, want_value, p);
	if (s)
		s->why[0] = 0;
	return 0;
}

/* One desired value: take it under management; a write, if one is needed, is queued for flush(). */
static void want_value(void *ctx, const char *file, const char *value)
{
	struct pass *p = ctx;
	struct enforcer *e = p->e;
	struct managed *m = find_m(e, p->rel, file);
	char now[64], fresh[PATH_MAX + 32] = "";

	uint64_t id = p->id;

	if (cgfs_read(&e->s.fs, p->rel, file, now, sizeof(now)) < 0)
		return;
	now[strcspn(now, "\n")] = 0;
	if (m && m->id != id) {
		/*
		 * Another cgroup under the name (removed and made again: a
		 * systemctl restart does it within a second). The one enforce
		 * wrote to is gone, and so is its value; what this one has now
		 * is its own original, journalled before enforce writes to it.
		 */
		cgs_debug("%s %s: a new cgroup under the name (id %llu, was %llu): its value '%s' is its original",
			  p->rel, file, (unsigned long long)id, (unsigned long long)m->id, now);
		if (m->journaled && journal_drop(&e->j, m->rel, m->file) && journal_commit(e))
			logline("journal %s: cannot update it", e->j.path);
		snprintf(m->orig, sizeof(m->orig), "%s", now);
		snprintf(m->want, sizeof(m->want), "%s", now);
		m->id = id;
		m->journaled = false;
		snprintf(fresh, sizeof(fresh), "made again under its name");
	}
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
		m->id = id;
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
	if (e->npend == e->pendcap) {
		size_t c = e->pendcap ? e->pendcap * 2 : 16;
		struct pending *n = realloc(e->pend, c * sizeof(*n));
		if (!n) {
			logline("%s %s: %s -> %s not made: out of memory", p->rel, file, now, value);
			return;
		}
		e->pend = n;
		e->pendcap = c;
	}
	struct pending *w = &e->pend[e->npend];
	memset(w, 0, sizeof(*w));
	if (!(w->why = strdup(why))) {
		logline("%s %s: %s -> %s not made: out of memory", p->rel, file, now, value);
		return;
	}
	w->m = m - e->m;
	snprintf(w->now, sizeof(w->now), "%s", now);
	snprintf(w->value, sizeof(w->value), "%s", value);
	e->npend++;
}

/* The journal as it is in memory, on disk: replaced whole, or removed when empty. */
static int journal_commit(struct enforcer *e)
{
	return e->j.n ? journal_save(&e->j) : journal_remove(e->j.path);
}

/*
 * The pass's writes: first the values of the files about to be changed for
 * the first time go to the journal, in one atomic replace; then the writes,
 * in the order decided (a quota before its burst). No file is changed whose
 * value could not be journalled: after a crash it could not be put back.
 */
static void flush(struct enforcer *e)
{
	size_t added = 0;
	int err;

	for (size_t i = 0; i < e->npend; i++) {
		struct pending *w = &e->pend[i];
		struct managed *m = &e->m[w->m];
		const struct journal_ent *old;
		if (m->journaled)
			continue;
		/* Still journalled: its restore was refused after a reload. Its value then is the original. */
		if ((old = journal_find(&e->j, m->rel, m->file)) && old->id == m->id) {
			snprintf(m->orig, sizeof(m->orig), "%s", old->orig);
			m->journaled = true;
			continue;
		}
		if (old) /* a cgroup gone since: this one under its name is another */
			journal_drop(&e->j, m->rel, m->file);
		if (!journal_value_ok(m->file, m->orig) || (err = journal_add(&e->j, m->id, m->rel, m->file, m->orig))) {
			logline("%s %s: %s -> %s not made: its value '%s' cannot be journalled", m->rel, m->file, w->now,
				w->value, m->orig);
			w->skip = true;
			continue;
		}
		m->journaled = w->added = true;
		added++;
	}
	if (added && (err = journal_save(&e->j))) {
		logline("journal %s: cannot write it (%s): %zu change%s not made (none is made that a crash could not undo)",
			e->j.path, strerror(-err), added, added == 1 ? "" : "s");
		/* This pass's entries out again; those of earlier passes are on disk, their writes go ahead. */
		for (size_t i = 0; i < e->npend; i++) {
			struct managed *m = &e->m[e->pend[i].m];
			if (e->pend[i].added) {
				journal_drop(&e->j, m->rel, m->file);
				m->journaled = false;
			}
		}
		for (size_t i = 0; i < e->npend; i++)
			if (!e->m[e->pend[i].m].journaled)
				e->pend[i].skip = true;
	}
	for (size_t i = 0; i < e->npend; i++) {
		struct pending *w = &e->pend[i];
		struct managed *m = &e->m[w->m];
		if (!w->skip) {
			if ((err = cgfs_write(&e->s.fs, m->rel, m->file, w->value)))
				logline("%s %s: %s -> %s failed: %s", m->rel, m->file, w->now, w->value, strerror(-err));
			else
				logline("%s %s: %s -> %s (%s)", m->rel, m->file, w->now, w->value, w->why);
			snprintf(m->want, sizeof(m->want), "%s", w->value);
		}
		free(w->why);
	}
	e->npend = 0;
}

/* Put a file back as found: 0 (or nothing to do: as found, or the cgroup gone), -errno when refused. */
static int restore(struct enforcer *e, struct managed *m, const char *why)
{
	char now[64];
	uint64_t id;
	int err;

	/* Gone, or another cgroup under its name: not ours to write. */
	if (cgfs_id(&e->s.fs, m->rel, &id) || id != m->id || cgfs_read(&e->s.fs, m->rel, m->file, now, sizeof(now)) < 0)
		return 0;
	now[strcspn(now, "\n")] = 0;
	if (!strcmp(now, m->orig))
		return 0;
	if ((err = cgfs_write(&e->s.fs, m->rel, m->file, m->orig)))
		logline("%s %s: restoring %s failed: %s", m->rel, m->file, m->orig, strerror(-err));
	else
		logline("%s %s: %s -> %s (%s)", m->rel, m->file, now, m->orig, why);
	return err;
}

static void enforce_pass(struct enforcer *e, bool first)
{
	struct pass p = { .e = e, .first = first };

	bool dropped = false;
	int err;

	for (size_t i = 0; i < e->n; i++)
		e->m[i].seen = false;
	for (size_t i = 0; i < e->nsoft; i++)
		e->soft[i].seen = false;
	limits_targets(&e->lf, &e->s.fs, note_soft, e);
	shrink_soft(e);
	limits_targets(&e->lf, &e->s.fs, pass_target, &p);
	flush(e);
	/*
	 * Files no longer in the file (after a reload): back to what they were.
	 * Files of cgroups gone: forgotten. Either way out of the journal, but
	 * for a value the kernel refused to take back (kept for apply --restore).
	 */
	for (size_t i = 0; i < e->n;) {
		struct managed *m = &e->m[i];
		if (m->seen) {
			i++;
			continue;
		}
		if (!restore(e, m, "no longer in the limits file") && m->journaled)
			dropped |= journal_drop(&e->j, m->rel, m->file);
		e->m[i] = e->m[--e->n];
	}
	if (dropped && (err = journal_commit(e)))
		logline("journal %s: cannot update it: %s", e->j.path, strerror(-err));
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
	const char *journal;
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
	case OPT_JOURNAL:
		if (!*arg || arg[strlen(arg) - 1] == '/' || strlen(arg) + 32 >= PATH_MAX) {
			cgs_err("--journal %s: expected a file's path", arg);
			return -1;
		}
		o->journal = arg;
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
		{ "journal", required_argument, NULL, OPT_JOURNAL },
		EXPORT_LONG_OPTS,
		COMMON_LONG_OPTS,
		{},
	};
	struct enforcer e = { .threshold_ns = 2000000, .min_waits = 20 };
	struct common_opts co;
	struct snapshot prev = {}, cur, d;
	struct report r;
	struct enforce_opts eo = { .e = &e, .interval = 1000000000ULL, .journal = JOURNAL_DEFAULT };
	const struct cmd_spec spec = { "enforce", usage, "i:vh", longs, enforce_opt, &eo, &co, NULL, 1, "one limits file" };
	char err[PATH_MAX + 256];
	int first, k, ret = CGS_EXIT_USAGE;

	struct exporter *x = NULL;

	stop_catch_hup(); /* documented: a reload, never a kill, from the first line */
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
	if (k)
		cgs_err("%s", err);
	else if (cgfs_writable_or_explain(&e.s.fs, "enforce"))
		k = -1;
	if (k) {
		cgfs_close(&e.s.fs);
		limits_file_free(&e.lf);
		return CGS_EXIT_USAGE;
	}
	/* One enforce per journal; the lock is held until exit (the fd closes with us). */
	long holder;
	if (!strcmp(eo.journal, JOURNAL_DEFAULT))
		mkdir("/run/cgsched", 0755);
	int lock = journal_lock(eo.journal, &holder);
	if (lock < 0) {
		if (lock == -EBUSY)
			cgs_err("enforce: another cgsched enforce (pid %ld) is running with the journal %s: one per journal "
				"(stop it, or give this one --journal FILE)", holder, eo.journal);
		else if (lock == -EPERM)
			cgs_err("enforce: %s.lock is %s", eo.journal, JOURNAL_LOCK_UNSAFE);
		else
			cgs_err("enforce: cannot keep a journal at %s (%s.lock: %s): give --journal FILE in a writable directory",
				eo.journal, eo.journal, strerror(-lock));
		cgfs_close(&e.s.fs);
		limits_file_free(&e.lf);
		return CGS_EXIT_USAGE;
	}
	/* The port and the web config before anything is traced or changed. */
	if (eo.x.listen && (k = exporter_open(&x, &eo.x))) {
		cgfs_close(&e.s.fs);
		limits_file_free(&e.lf);
		return k;
	}
	/*
	 * A journal left by a killed enforce: its values back first, so that
	 * the values found below, and restored at our exit, are the true ones.
	 */
	bool found;
	k = journal_restore(eo.journal, &e.s.fs, false, &found, say_log, NULL);
	cgfs_close(&e.s.fs);
	if (k) {
		exporter_close(x);
		limits_file_free(&e.lf);
		return k;
	}
	if (x) /* removed cgroups' figures outlive their series' grace (noticed within 5 s) */
		co.so.keep_removed_ns = eo.x.grace_ns + 10000000000ULL;
	if ((k = session_open(&e.s, &co.so))) {
		session_close(&e.s);
		exporter_close(x);
		limits_file_free(&e.lf);
		return k;
	}
	journal_init(&e.j, eo.journal, &e.s.fs);
	if (x)
		exporter_attach(x, &e.s, false);
	cgfs_self(&e.s.fs, e.self, sizeof(e.self));
	logline("enforcing %s (%zu sections), cgroup v%d at %s, every %.2fs; soft caps when a run-queue p99 > %.2fms; journal %s",
		e.path, e.lf.n, e.s.fs.version, e.s.fs.mnt, interval / 1e9, e.threshold_ns / 1e6, e.j.path);
	if (x)
		logline("serving %s", exporter_url(x));
	exporter_lock(x);
	enforce_pass(&e, true);
	exporter_unlock(x);
	bool have_prev = false;
	uint64_t deadline = now_ns();
	for (;;) {
		deadline += interval;
		if (!session_sleep_until(&e.s, deadline) && !cgs_hup)
			break;
		exporter_tick(x);
		/* The maps and the cgroup cache are the scrapes' too: one of us at a time. */
		exporter_lock(x);
		if (cgs_hup) {
			cgs_hup = 0;
			reload(&e);
			exporter_unlock(x);
			/* Unlocked: the old server's request in flight may be waiting for the lock as it stops. */
			if (x)
				exporter_reload(x, logline_str);
			continue;
		}
		if ((k = snapshot_read(&e.s.tr, &cur, false, have_prev ? &prev : &e.s.base))) {
			logline("reading the BPF maps failed: %s; this interval's contention is not judged", strerror(-k));
			exporter_unlock(x);
			continue;
		}
		if ((k = snapshot_delta(have_prev ? &prev : &e.s.base, &cur, &d)) || (k = report_build(&r, &d, interval, false, NULL))) {
			logline("this interval's report: %s; its contention is not judged", strerror(-k));
		} else {
			log_drops(d.drops, &r);
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
		if (!restore(&e, &e.m[i], "restored at exit") && e.m[i].journaled)
			journal_drop(&e.j, e.m[i].rel, e.m[i].file);
	ret = 0;
	/* A clean restore: no journal. Else what could not be put back stays in it. */
	if ((k = journal_commit(&e)))
		logline("journal %s: cannot %s it: %s", e.j.path, e.j.n ? "update" : "remove", strerror(-k));
	if (e.j.n) {
		logline("journal %s kept: %zu value%s could not be put back; 'cgsched apply --restore %s' tries again",
			e.j.path, e.j.n, e.j.n == 1 ? "" : "s", e.j.path);
		ret = CGS_EXIT_FAIL;
	}
	journal_free(&e.j);
	close(lock);
	snapshot_free(&prev);
	free(e.m);
	free(e.soft);
	free(e.pend);
	limits_file_free(&e.lf);
	session_close(&e.s);
	return ret;
}
