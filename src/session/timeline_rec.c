// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --timeline: what a session saw, as Perfetto tracks (timeline_rec.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/refresh.h"
#include "session/timeline_rec.h"
#include "lib/cgname.h"
#include "lib/util.h"

struct tl_seen {
	uint64_t id;        /* the track's uuid */
	uint64_t last_end;  /* a thread's waits: the end of the last one written */
};

enum tl_kind { TK_CGROUP = 1, TK_CPU_THR, TK_TASK, TK_COUNTER, TK_TOP, TK_PERIODS, TK_RUNS };

/* A cgroup's periods (period_track's sink draws them); apart from the table, which moves its entries. */
struct tl_per {
	struct period_track pt;
	struct period_sink sink;
	struct tl_rec *r;
	uint64_t cgid;
};
struct tl_per_ref {
	uint64_t id;
	struct tl_per *p;
};

/* Episodes waiting for their grid: at most this many (40 bytes each). */
#define TL_PENDING_MAX 65536

/* A track's uuid from what it is: splitmix64 of the parts, never 0. */
static uint64_t uuid_of(enum tl_kind k, uint64_t a, uint64_t b)
{
	uint64_t z = (uint64_t)k * 0x9e3779b97f4a7c15ULL ^ a * 0xbf58476d1ce4e5b9ULL ^ b * 0x94d049bb133111ebULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z ? z : 1;
}

/* First time only: whether the track still has to be announced. */
static bool fresh(struct tl_rec *r, uint64_t uuid)
{
	bool f = false;

	return idtab_put(&r->seen, uuid, &f) && f;
}

static void on_episode(void *ctx, const struct cgs_episode *e);
static void on_wait(void *ctx, const struct cgs_wait *w);

/* What the trace misses: records its ring buffers had no room for. */
static uint64_t events_lost(const uint64_t *drops)
{
	return drops[CGS_DROP_EPISODE_LOST] + drops[CGS_DROP_WAIT_LOST];
}

static void rec_init(struct tl_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->seen = (struct idtab)IDTAB_INIT(struct tl_seen);
	r->per = (struct idtab)IDTAB_INIT(struct tl_per_ref);
}

int tl_rec_open_quiet(struct tl_rec *r, const char *path)
{
	int err;

	rec_init(r);
	if ((err = timeline_open(&r->tl, path)))
		return err;
	r->tl.quiet = true;
	return 0;
}

int tl_rec_open(struct tl_rec *r, const char *path)
{
	const char *why;
	int err;

	rec_init(r);
	/* Renamed over path at the end: a directory there would fail only then. */
	if (output_path_check(path, &why)) {
		cgs_err("--timeline %s: cannot write there: %s", path, why);
		return CGS_EXIT_USAGE;
	}
	if ((err = timeline_open(&r->tl, path))) {
		cgs_err("--timeline %s: cannot write there: %s", path, strerror(-err));
		return CGS_EXIT_USAGE;
	}
	return 0;
}

/* The counter of what is not in the trace, from t_ns. */
static void lost_track(struct tl_rec *r, uint64_t t_ns)
{
	timeline_track(&r->tl, uuid_of(TK_TOP, 1, 0), 0, "cgsched: events lost",
		       "throttle episodes and long waits not in this trace (a ring buffer full): "
		       "where it rises, the trace is incomplete", true, "events");
	timeline_counter(&r->tl, uuid_of(TK_TOP, 1, 0), t_ns, 0);
}

void tl_rec_attach(struct tl_rec *r, struct session *s)
{
	struct tracer_tap tap = { on_episode, on_wait, r };

	r->s = s;
	lost_track(r, s->tr.attached_ns);
	tracer_set_tap(&s->tr, &tap);
}

void tl_rec_replay(struct tl_rec *r, struct session *s, uint64_t t0_ns)
{
	r->s = s;
	r->replay = true;
	lost_track(r, t0_ns);
}

void tl_rec_episode(struct tl_rec *r, const struct cgs_episode *e)
{
	on_episode(r, e);
}

void tl_rec_wait(struct tl_rec *r, const struct cgs_wait *w)
{
	on_wait(r, w);
}

void tl_rec_lost(struct tl_rec *r, uint64_t t_ns, uint64_t lost)
{
	r->lost = lost;
	timeline_counter(&r->tl, uuid_of(TK_TOP, 1, 0), t_ns, (double)lost);
}

/* The cgroup's track, and its ancestors' first: the tracks nest as the cgroups do. */
static uint64_t cg_track(struct tl_rec *r, uint64_t id)
{
	uint64_t uuid = uuid_of(TK_CGROUP, id, 0), parent = 0, pid;
	const char *path;
	char pp[PATH_MAX], name[PATH_MAX + CGNAME_SHORT_MAX + 8], who[CGNAME_SHORT_MAX], esc[4 * PATH_MAX];

	if (!fresh(r, uuid))
		return uuid;
	path = session_cgroup_name(r->s, id);
	if (path && strcmp(path, "/")) {
		cgpath_parent(path, pp, sizeof(pp));
		if (!cgfs_id(&r->s->fs, pp, &pid))
			parent = cg_track(r, pid);
	}
	/* Its own name under its parent, and who it is when the path says. */
	const char *base = !path ? NULL : strcmp(path, "/") ? strrchr(path, '/') + 1 : "cgroups (/)";
	const char *w = who_text(cgfs_who(&r->s->fs, id), who, sizeof(who));
	if (base && w)
		snprintf(name, sizeof(name), "%s [%s]", base, w);
	else if (base)
		snprintf(name, sizeof(name), "%s", base);
	else
		snprintf(name, sizeof(name), "cgroup id %llu (removed)", (unsigned long long)id);
	timeline_track(&r->tl, uuid, parent, utf8_valid(name, esc, sizeof(esc)), path ? utf8_valid(path, pp, sizeof(pp)) : NULL,
		       false, NULL);
	return uuid;
}

/* A sub-track of a cgroup's: per CPU for episodes, per thread for waits, per counter. */
static uint64_t sub_track(struct tl_rec *r, uint64_t cgid, enum tl_kind k, uint64_t x, const char *name,
			  const char *unit)
{
	uint64_t uuid = uuid_of(k, cgid, x);

	if (fresh(r, uuid))
		timeline_track(&r->tl, uuid, cg_track(r, cgid), name, NULL, k == TK_COUNTER, unit);
	return uuid;
}

static const char *cg_label(struct tl_rec *r, uint64_t id, char *buf, size_t len)
{
	const char *p;

	if (!id)
		return "the idle CPU, or a task of no traced cgroup";
	p = session_cgroup_name(r->s, id);
	return utf8_valid(p ? p : "(a removed cgroup)", buf, len);
}

/* Each episode as it arrives (the tracer's tap): a slice on its cgroup's track for its CPU. */
static void on_episode(void *ctx, const struct cgs_episode *e)
{
	struct tl_rec *r = ctx;
	char name[32];

	if (episode_timed(e)) { /* the others count in the periods only */
		snprintf(name, sizeof(name), "CPU %u throttled", e->cpu);
		uint64_t tr = sub_track(r, e->cgid, TK_CPU_THR, e->cpu, name, NULL);
		timeline_slice(&r->tl, tr, e->start_ns, e->end_ns, "throttled", NULL, 0);
	}
	/* ...and its period, once the interval's rows have brought the grid (flush_periods). */
	if (r->npend == r->cappend) {
		size_t cap = r->cappend ? 2 * r->cappend : 256;
		struct cgs_episode *p = cap <= TL_PENDING_MAX ? realloc(r->pend, cap * sizeof(*p)) : NULL;
		if (!p) {
			r->unplaced++;
			return;
		}
		r->pend = p;
		r->cappend = cap;
	}
	r->pend[r->npend++] = *e;
}

/*
 * Whether a slice may go on a track whose slices come in order of time.
 * A slice that would begin before the last one ended is left out; that
 * happens when a new period length moves the grid.
 */
static bool in_order(struct tl_rec *r, uint64_t track, uint64_t start, uint64_t end)
{
	struct tl_seen *seen = idtab_find(&r->seen, track);

	if (!seen || start < seen->last_end)
		return false;
	seen->last_end = end;
	return true;
}

/* A throttled period: as long as the period, named by how far into it the quota ran out. */
static void on_period(void *ctx, uint64_t start_ns, uint64_t end_ns, uint64_t ran_out_ns, uint64_t run)
{
	struct tl_per *p = ctx;
	char name[48];
	uint64_t tr = sub_track(p->r, p->cgid, TK_PERIODS, 0, "throttled periods", NULL);

	if (!in_order(p->r, tr, start_ns, end_ns))
		return;
	snprintf(name, sizeof(name), "quota out at %llu.%llu ms", (unsigned long long)(ran_out_ns / 1000000),
		 (unsigned long long)(ran_out_ns / 100000 % 10));
	struct timeline_arg a[] = {
		{ "quota ran out after (us)", NULL, (int64_t)(ran_out_ns / 1000) },
		{ "throttled periods in a row so far", NULL, (int64_t)run },
	};
	timeline_slice(&p->r->tl, tr, start_ns, end_ns, name, a, 2);
}

/* A run of throttled periods in a row, once it is over. */
static void on_run(void *ctx, uint64_t start_ns, uint64_t end_ns, uint64_t len)
{
	struct tl_per *p = ctx;
	char name[48];
	uint64_t tr = sub_track(p->r, p->cgid, TK_RUNS, 0, "throttled periods in a row", NULL);

	if (!in_order(p->r, tr, start_ns, end_ns))
		return;
	snprintf(name, sizeof(name), "%llu in a row", (unsigned long long)len);
	struct timeline_arg a[] = { { "periods", NULL, (int64_t)len } };
	timeline_slice(&p->r->tl, tr, start_ns, end_ns, name, a, 1);
}

static int cmp_ep_cg(const void *a, const void *b)
{
	const struct cgs_episode *x = a, *y = b;

	return x->cgid < y->cgid ? -1 : x->cgid > y->cgid;
}

/* A cgroup's grid from its row (a quota, and its period timer found running). */
static void period_grid(struct tl_rec *r, const struct row *w)
{
	struct tl_per_ref *ref;
	bool fresh = false;

	if (w->members || !w->k.ok || w->k.quota_us <= 0 || !w->k.period_end_ns)
		return;
	if (!(ref = idtab_put(&r->per, w->id, &fresh)))
		return;
	if (fresh) {
		if (!(ref->p = calloc(1, sizeof(*ref->p)))) {
			idtab_del(&r->per, w->id);
			return;
		}
		ref->p->r = r;
		ref->p->cgid = w->id;
		ref->p->sink = (struct period_sink){ on_period, on_run, ref->p };
		ref->p->pt.sink = &ref->p->sink;
	}
	period_track_grid(&ref->p->pt, w->k.period_us * 1000, w->k.period_end_ns);
}

/*
 * Place the episodes so far on their cgroups' grids. Episodes of a cgroup
 * with no grid yet wait for the next interval. At the end (last), those
 * still without a grid count as unplaced instead.
 */
static void flush_periods(struct tl_rec *r, uint64_t now_ns, bool last)
{
	size_t keep = 0;

	/* Before the episodes are placed: it delivers those that ended before it (the tap). */
	if (!last && !r->replay && r->s)
		tracer_pending(&r->s->tr, &r->pending); /* out of memory: none, runs closed as before */
	qsort(r->pend, r->npend, sizeof(*r->pend), cmp_ep_cg);
	for (size_t i = 0, j; i < r->npend; i = j) {
		for (j = i + 1; j < r->npend && r->pend[j].cgid == r->pend[i].cgid; j++)
			;
		struct tl_per_ref *ref = idtab_find(&r->per, r->pend[i].cgid);
		if (ref && ref->p->pt.period_ns) {
			if (period_track_add(&ref->p->pt, &r->pend[i], j - i))
				r->unplaced += j - i;
		} else if (last) {
			r->unplaced += j - i;
		} else {
			memmove(&r->pend[keep], &r->pend[i], (j - i) * sizeof(*r->pend));
			keep += j - i;
		}
	}
	r->npend = keep;
	for (size_t i = 0; i < r->per.cap; i++) {
		struct tl_per_ref *ref = idtab_at(&r->per, i);
		if (!ref)
			continue;
		if (last)
			period_track_end(&ref->p->pt);
		else
			period_track_close(&ref->p->pt, now_ns, cg_pending_has(&r->pending, ref->p->cgid));
	}
}

/* Each long wait: a slice on its thread's track, named by who ran until it got the CPU. */
static void on_wait(void *ctx, const struct cgs_wait *w)
{
	struct tl_rec *r = ctx;
	char name[64], who[4 * PATH_MAX];

	snprintf(name, sizeof(name), "thread %u: waits over the threshold", w->pid);
	uint64_t tr = sub_track(r, w->cgid, TK_TASK, w->pid, name, NULL);
	struct tl_seen *seen = idtab_find(&r->seen, tr);
	/*
	 * The start is the end less a length measured on the run queue's
	 * clock. It can be a few us off, enough for two waits of a thread to
	 * overlap. Slices on one track must not overlap, so start no earlier
	 * than the last one ended.
	 */
	uint64_t start = w->start_ns;
	if (seen && start < seen->last_end)
		start = seen->last_end;
	if (start > w->end_ns)
		start = w->end_ns;
	if (seen)
		seen->last_end = w->end_ns;
	struct timeline_arg a[] = {
		{ "behind", cg_label(r, w->behind, who, sizeof(who)), 0 },
		{ "cpu", NULL, w->cpu },
		{ "tid", NULL, w->pid },
	};
	timeline_slice(&r->tl, tr, start, w->end_ns, "waited for a CPU", a, 3);
}


void tl_rec_rows(struct tl_rec *r, const struct report *rep, uint64_t t_ns)
{
	static const struct {
		const char *name, *unit;
	} ctr[] = { { "CPU %", "%" }, { "run-queue p99 (ms)", "ms" }, { "throttled %", "%" }, { "quota used %", "%" } };

	for (size_t i = 0; i < rep->n; i++) {
		const struct row *w = &rep->rows[i];
		if (w->members)
			continue; /* --group-by's sums are not cgroups of the hierarchy */
		period_grid(r, w);
		double v[] = { w->cpu_pct, w->runq_p99_ns / 1e6, w->thr_pct, w->quota_used_pct };
		for (size_t k = 0; k < ARRAY_SIZE(ctr); k++) {
			if (k == 3 && v[k] < 0)
				continue; /* no quota */
			timeline_counter(&r->tl, sub_track(r, w->id, TK_COUNTER, k, ctr[k].name, ctr[k].unit), t_ns, v[k]);
		}
	}
	flush_periods(r, t_ns, false);
	if (r->replay)
		return; /* the losses are told (tl_rec_lost) */
	/* Losses (ring buffers full), in the trace itself; exact at the end (tl_rec_finish). */
	r->lost += events_lost(rep->d->drops);
	timeline_counter(&r->tl, uuid_of(TK_TOP, 1, 0), t_ns, (double)r->lost);
}

void tl_rec_snapshots(struct tl_rec *r, const struct snapshot *prev, const struct snapshot *cur)
{
	struct refresh f;

	/* Only record builds its own reports (top passes its own): the kernel's figures opened then. */
	if (!r->ks_tried) {
		r->ks_tried = true;
		r->ks_open = !kstat_src_open(&r->ks, &r->s->fs, KSTAT_AUTO);
	}
	struct refresh_opts o = { .ks = r->ks_open ? &r->ks : NULL, .no_paths = true };
	if (!refresh_make(&f, r->s, &o, prev, cur))
		tl_rec_rows(r, &f.r, cur->t_ns);
	refresh_free(&f);
}

void tl_rec_command(struct tl_rec *r, const char *name, uint64_t start_ns, uint64_t end_ns)
{
	uint64_t tr = uuid_of(TK_TOP, 2, 0);

	if (fresh(r, tr))
		timeline_track(&r->tl, tr, 0, "command", "the command cgsched record ran", false, NULL);
	timeline_slice(&r->tl, tr, start_ns, end_ns, name, NULL, 0);
}

void tl_rec_finish(struct tl_rec *r)
{
	struct snapshot tot = { 0 };

	if (!r->s || r->finished)
		return;
	r->finished = true;
	if (r->replay) {
		flush_periods(r, 0, true);
		return;
	}
	tracer_poll(&r->s->tr, 0); /* the last records: the taps see each as it is consumed */
	flush_periods(r, now_ns(), true);
	if (r->unplaced)
		cgs_debug("--timeline: %llu throttle episodes not placed on a period grid (none known: no cgroup iterator)",
			  (unsigned long long)r->unplaced);
	/* The BPF side's own counts since attach: every loss, whatever the intervals were. */
	if (!snapshot_take(&r->s->tr, &tot, &(struct snapshot_how){ .totals = true })) {
		r->lost = events_lost(tot.drops);
		timeline_counter(&r->tl, uuid_of(TK_TOP, 1, 0), tot.t_ns, (double)r->lost);
		snapshot_free(&tot);
	}
	if (r->lost)
		cgs_warn("--timeline %s: %llu events lost (ring buffer full): the trace is incomplete there "
			 "(its track \"cgsched: events lost\" shows when)", r->tl.f.path, (unsigned long long)r->lost);
	tracer_set_tap(&r->s->tr, &(struct tracer_tap){});
}

int tl_rec_close(struct tl_rec *r, bool keep)
{
	int err;

	if (keep)
		tl_rec_finish(r);
	else if (r->s && !r->replay)
		tracer_set_tap(&r->s->tr, &(struct tracer_tap){});
	uint64_t packets = r->tl.packets, bytes = r->tl.bytes;
	err = timeline_close(&r->tl, keep);
	if (!err && keep)
		cgs_debug("--timeline: %llu packets, %llu bytes", (unsigned long long)packets, (unsigned long long)bytes);
	idtab_free(&r->seen);
	for (size_t i = 0; i < r->per.cap; i++) {
		struct tl_per_ref *ref = idtab_at(&r->per, i);
		if (ref)
			free(ref->p);
	}
	idtab_free(&r->per);
	free(r->pend);
	r->pend = NULL;
	cg_pending_free(&r->pending);
	if (r->ks_open)
		kstat_src_close(&r->ks);
	r->ks_open = false;
	return err ? CGS_EXIT_FAIL : 0;
}
