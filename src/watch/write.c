// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Writing one incident of cgsched watch (write.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "report/hist.h"
#include "report/record.h"
#include "report/report.h"
#include "session/session.h"
#include "session/timeline_rec.h"
#include "watch/watch.h"
#include "watch/write.h"

struct subtree {
	struct session *s;
	const char *base;   /* NULL: every cgroup */
};

static bool under(const char *path, const char *base)
{
	size_t n = strlen(base);

	if (!strcmp(base, "/"))
		return true;
	return !strncmp(path, base, n) && (path[n] == '\0' || path[n] == '/');
}

static bool in_subtree(void *ctx, uint64_t id)
{
	const struct subtree *t = ctx;
	const char *p;

	if (!t->base)
		return true;
	p = session_cgroup_name(t->s, id);
	return p && under(p, t->base);
}

/* Wall-clock seconds of a monotonic time, now. */
static double wall_of(uint64_t mono_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	double now = ts.tv_sec + ts.tv_nsec / 1e9;
	return now - (double)(now_ns() - mono_ns) / 1e9;
}

/* The window's report in record's schema, for the cgroup and those below it. */
static int write_report(struct watch *w, const struct watch_fired *p, const struct incident *in, uint64_t from,
			uint64_t to, struct record_summary *rs, struct snapshot *d, struct report *r,
			struct idtab *kfigs, struct cgs_episode **ep)
{
	struct subtree st = { w->s, p->id ? p->path : NULL };
	uint64_t t0, t1;
	int err;

	if ((err = history_window(&w->h, from, to, in_subtree, &st, d, kfigs, &t0, &t1)))
		return err;
	if (!t1)
		return -ENODATA;
	if (report_build(r, d, t1 - t0, false, kfigs))
		return -ENOMEM;
	report_sort(r, &w->s->fs, SORT_PATH, 0);
	report_resolve(r, &w->s->fs, 0);
	memset(rs, 0, sizeof(*rs));
	session_trace_info(w->s, &rs->ti);
	rs->cgroup = p->path;
	rs->attached = true;
	rs->start_time = wall_of(t0);
	rs->wall_ns = t1 - t0;
	rs->exit_status = rs->exit_signal = -1;
	record_aggregate(rs, r);
	if (w->cfg.why)
		record_why(rs, r, &w->s->fs); /* what the waits were spent behind, as record --why's */
	memcpy(rs->drops, d->drops, sizeof(rs->drops));
	const struct kstat_fig *kf = p->id ? idtab_find(kfigs, p->id) : NULL;
	if (kf && kf->k.ok) {
		rs->k = kf->k;
		rs->k_ok = true;
		rs->k_periods = kf->g.periods;
		rs->k_throttled = kf->g.throttled;
		rs->k_throttled_ns = kf->g.throttled_ns;
		rs->k_bursts = kf->g.bursts;
		rs->k_burst_ns = kf->g.burst_ns;
	}
	/* Its episodes in the window: those that ended in it. */
	size_t n = 0;
	for (size_t i = 0; history_episode(&w->h, i); i++)
		n++;
	*ep = n ? calloc(n, sizeof(**ep)) : NULL;
	size_t m = 0;
	for (size_t i = 0; *ep && i < n; i++) {
		const struct cgs_episode *e = history_episode(&w->h, i);
		if (e->end_ns > t0 && e->end_ns <= t1 && in_subtree(&st, e->cgid))
			(*ep)[m++] = *e;
	}
	rs->ep = (struct episode_view){ *ep, m, w->h.dropped_ep, t0, session_cgroup_name, w->s };
	if (rs->k_ok && rs->k.quota_us > 0 && record_periods(rs, p->id, rs->k.period_end_ns))
		return -ENOMEM;
	size_t len;
	char *text = record_json_text(rs, &len);
	if (!text)
		return -ENOMEM;
	err = incident_put(in, "report.json", text, len);
	free(text);
	return err;
}

/* Each interval of the window, as its counters. */
static void trace_counters(struct watch *w, struct tl_rec *tl, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < history_count(&w->h); i++) {
		uint64_t t0, t1, a, b;
		struct snapshot d;
		struct idtab kf;
		struct report r;

		history_bounds(&w->h, i, &t0, &t1);
		if (t1 <= from || t1 > to)
			continue;
		if (history_window(&w->h, t1 - 1, t1, NULL, NULL, &d, &kf, &a, &b))
			continue;
		if (!report_build(&r, &d, t1 - t0, false, &kf)) {
			tl_rec_rows(tl, &r, t1);
			report_free(&r);
		}
		snapshot_free(&d);
		idtab_free(&kf);
	}
}

/* A file's data on disk. */
static void sync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* The window as a Perfetto trace: every cgroup's episodes, long waits and counters. */
static int write_trace(struct watch *w, const struct incident *in, uint64_t from, uint64_t to)
{
	struct tl_rec tl;
	char path[4096 + 64];
	int err;

	/* A failure is the incident's, said in its line. */
	if ((err = tl_rec_open_quiet(&tl, incident_file(in, "trace.pftrace", path, sizeof(path)))))
		return err;
	tl_rec_replay(&tl, w->s, from);
	for (size_t i = 0; history_episode(&w->h, i); i++) {
		const struct cgs_episode *e = history_episode(&w->h, i);
		if (e->end_ns > from && e->start_ns <= to)
			tl_rec_episode(&tl, e);
	}
	for (size_t i = 0; history_wait(&w->h, i); i++) {
		const struct cgs_wait *x = history_wait(&w->h, i);
		if (x->end_ns > from && x->start_ns <= to)
			tl_rec_wait(&tl, x);
	}
	trace_counters(w, &tl, from, to);
	/* What is not in it: the ring buffers' losses in the window, and what the bound let go. */
	struct snapshot d;
	struct idtab kf;
	uint64_t a, b, lost = w->h.dropped_ep + w->h.dropped_wt;
	if (!history_window(&w->h, from, to, NULL, NULL, &d, &kf, &a, &b)) {
		lost += d.drops[CGS_DROP_EPISODE_LOST] + d.drops[CGS_DROP_WAIT_LOST];
		snapshot_free(&d);
		idtab_free(&kf);
	}
	tl_rec_lost(&tl, to, lost);
	if (tl_rec_close(&tl, true))
		err = tl.tl.err ? tl.tl.err : -EIO;
	else
		sync_path(path); /* on disk before the incident's name points at it */
	return err;
}

int incident_write(struct watch *w, const struct watch_fired *p, char *where, size_t n)
{
	char name[160], slug[96], when[32];
	const char *rule = p->trig >= 0 ? trigger_rule_name(w->cfg.trig[p->trig].m) : "asked";
	struct incident in;
	struct tm tm;
	int err;

	localtime_r(&p->at_wall, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	incident_slug(p->id ? p->path : "/", slug, sizeof(slug));
	snprintf(name, sizeof(name), "%s-%s-%s", when, rule, slug);
	if ((err = incident_begin(&w->dir, name, &in))) {
		w->dir.failed++;
		return err;
	}
	uint64_t from = p->at_ns > w->cfg.before_ns ? p->at_ns - w->cfg.before_ns : 0;
	uint64_t to = w->last_t_ns > p->at_ns ? w->last_t_ns : p->at_ns;
	struct record_summary rs;
	struct snapshot d = {};
	struct report r = {};
	struct idtab kfigs = IDTAB_INIT(struct kstat_fig);
	struct cgs_episode *ep = NULL;

	err = write_report(w, p, &in, from, to, &rs, &d, &r, &kfigs, &ep);
	/* Tests only: a pause between the files, for a SIGKILL to land while an incident is half-written. */
	const char *pause = getenv("CGSCHED_TEST_INCIDENT_PAUSE_MS");
	if (!err && pause)
		usleep((useconds_t)strtoul(pause, NULL, 10) * 1000);
	if (!err)
		err = write_trace(w, &in, from, to);
	if (!err) {
		char s[PATH_MAX + 2048], v[48], q[16], a[16], b[16], c[16];
		const struct trigger *t = p->trig >= 0 ? &w->cfg.trig[p->trig] : NULL;
		int len = snprintf(s, sizeof(s),
			"cgroup:   %s\n"
			"rule:     %s\n"
			"measured: %s\n"
			"window:   %s before it and %s after (%s of figures kept)\n"
			"figures:  %.1f%% of a CPU, run-queue p99 %s, throttled %.1f%% (%llu episodes)\n"
			"files:    report.json (cgsched/record schema), trace.pftrace (ui.perfetto.dev)\n"
			"held back: %llu firings in a rate limit so far (every rule)\n",
			p->id ? p->path : "every cgroup", t ? t->text : "asked for (SIGUSR1 or cgsched watch --dump)",
			t ? trigger_value_text(t, p->value, v, sizeof(v)) : "-",
			fmt_duration(a, sizeof(a), p->at_ns - from), fmt_duration(b, sizeof(b), to - p->at_ns),
			fmt_duration(c, sizeof(c), rs.wall_ns), record_cpu_pct(&rs),
			fmt_duration(q, sizeof(q), (uint64_t)(hist_percentile(rs.c.runq_slots, CGS_HIST_SLOTS, 99, rs.runq_max_ns / 1e3) * 1e3)),
			record_thr_pct(&rs), (unsigned long long)rs.c.thr_count, (unsigned long long)w->suppressed);
		err = incident_put(&in, "summary.txt", s, (size_t)len < sizeof(s) ? (size_t)len : sizeof(s) - 1);
	}
	report_free(&r);
	snapshot_free(&d);
	idtab_free(&kfigs);
	free(ep);
	int e2 = incident_end(&w->dir, &in, !err);
	if (!err && e2)
		err = e2;
	if (!err)
		snprintf(where, n, "%s", in.path);
	return err;
}

void watch_due(struct watch *w, uint64_t now, bool all)
{
	for (size_t i = 0; i < w->npend;) {
		struct watch_fired *p = &w->pend[i];
		if (!all && p->due_ns > now) {
			i++;
			continue;
		}
		char where[4096 + 160], line[PATH_MAX + 4096 + 512], v[48];
		int err = incident_write(w, p, where, sizeof(where));
		const char *rule = p->trig >= 0 ? w->cfg.trig[p->trig].text : "asked for (SIGUSR1)";
		if (err)
			snprintf(line, sizeof(line), "incident NOT written: %s: %s: %s (%llu failed so far)", p->path, rule,
				 strerror(-err), (unsigned long long)w->dir.failed);
		else if (p->trig >= 0)
			snprintf(line, sizeof(line), "incident: %s: %s, measured %s; %s", p->path, rule,
				 trigger_value_text(&w->cfg.trig[p->trig], p->value, v, sizeof(v)), where);
		else
			snprintf(line, sizeof(line), "incident: every cgroup, %s; %s", rule, where);
		watch_say(line);
		memmove(p, p + 1, (w->npend - i - 1) * sizeof(*p));
		w->npend--;
		/*
		 * The summed window, its report and its trace can take tens of MB
		 * with thousands of cgroups. Give that memory back to the system
		 * now, rather than leave it in the heap.
		 */
		heap_trim();
	}
}
