// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One scrape reads the maps, which are cumulative since tracing began, so
 * counters never go back. It reads the kernel's figures in one pass and
 * each cgroup's names from the cache. Then it renders, a piece at a time
 * as the client reads. Series are keyed by cgroup id as well as path. A
 * cgroup removed and made again at the same path is a new series, since
 * it is a new cgroup to the kernel.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "exporter/exporter.h"
#include "exporter/http.h"
#include "exporter/metrics.h"
#include "exporter/webconfig.h"
#include "figures/kstat_src.h"
#include "kernel/psi.h"
#include "lib/cgname.h"
#include "lib/idtab.h"
#include "lib/util.h"
#include "session/demand_all.h"
#include "session/session.h"

/* A cgroup the exporter has shown. */
struct xcg {
	uint64_t id;
	char *labels;          /* cgroup="...",cgroup_id="..." */
	size_t labels_len;
	char *by_labels;       /* the same as a preemptor: by_cgroup=... (made when first needed) */
	char *path;            /* its own copy (a rename or a tree scan replaces the cache's); NULL: never known */
	struct cgname *who;    /* the same; NULL: nothing known */
	uint64_t gone_ns;      /* when it was found removed; 0: live */
	/*
	 * The figures that are not one map word each, as last shown. A running
	 * slice or waiting stretch is credited up to the read, and may end
	 * between two reads of the maps. Own-quota waits are a difference of
	 * two words. Showing at least these values keeps them from going back.
	 */
	uint64_t shown_oncpu, shown_some, shown_own;
	bool hidden;           /* removed for longer than the grace period: never shown again */
	uint64_t seen;         /* the last scrape whose figures had it */
	uint32_t krec;         /* where its kernel figures were in the last pass (kstat_src_get_at) */
	struct period_track *per; /* with a quota: its throttling period by period; NULL: none yet */
};

struct progs {
	struct mx_prog p[32];
	size_t n;
};

/*
 * The size of the pieces an answer is rendered in. The exposition of many
 * cgroups runs to tens of MB. Rendering it a piece at a time, as it is
 * sent, keeps it out of the RSS.
 */
#define PIECE_BYTES (128 * 1024)
/* Answers sent at once, each with a view of its own; more are told to retry (503). */
#define VIEWS_MAX 4

/*
 * An answer's working set: the figures of one moment, and how far its
 * rendering has got. The first view is kept for the next scrape, because
 * allocating the samples and rows afresh would make the kernel fault in
 * and zero megabytes of pages at each scrape. The other views, for scrapes
 * that overlap one being sent, are freed when their answer ends.
 */
struct view {
	struct exporter *x;
	bool busy;
	struct snapshot snap;
	struct mx_cg *cg;
	struct kstat *kfig;
	uint64_t *values;       /* the counters the families show, counter by counter (metrics_input.values) */
	struct mx_hist *runq;   /* and the run-queue histograms (metrics_input.runq) */
	size_t cgcap;
	struct progs progs;
	struct metrics_input in;
	struct mx_cursor cur;
	struct expo out;        /* the piece being sent */
	size_t sent;            /* of out */
	bool done;              /* every family rendered */
	uint64_t cpu_ns, wall_ns; /* spent gathering and rendering, the sending between pieces not counted */
};

struct exporter {
	struct exporter_opts o;
	struct webconfig wc[2]; /* the one in force, wc[wcur]; the other for a reload */
	int wcur;
	bool have_wc;
	struct http_server *http;
	pthread_mutex_t lock;
	struct session *s;     /* NULL until attached: scrapes get 500 */
	struct demand_all *dem; /* every cgroup's demand per period; NULL: not kept */
	bool why, split;
	struct kstat_src ks;
	bool ks_open;
	struct idtab tab;      /* id -> struct xcg */
	uint64_t scrapes;
	struct view *views[VIEWS_MAX];
	/*
	 * Answers being sent: while any is, no cgroup's labels or names are
	 * freed (its rows point at them); the tick frees them after.
	 */
	unsigned answering;
	uint64_t last_check_ns;
	uint64_t nremoved;      /* the cgroups' removals told at the last scrape (cgfs.nremoved) */
	double start_time;
	uint64_t episodes_lost; /* arrived while the tracer's list was full: periods they began not counted */
	struct cg_pending pending; /* cgroups with an episode still to come (exporter_episodes) */
	/* /readyz: the command's loop, and the drops seen at its last looks */
	uint64_t tick_ns;       /* its last exporter_tick */
	uint64_t drops[CGS_DROP__COUNT], drops_rose_ns;
	uint64_t rose_by[CGS_DROP__COUNT]; /* at the last look whose drops mattered: by how much each */
	struct snapshot look;   /* the figures of the last look (its arrays kept for the next) */
	struct look_waits *waits; /* each cgroup's run-queue waits then, by id */
	bool looked;            /* the first look is made: drops and waits since are judged */
	size_t nwaits;
};

/* A cgroup's run-queue waits at a look, to count the waits between two looks. */
struct look_waits {
	uint64_t id, count;
};

static int health(void *ctx, bool ready, char *buf, size_t n);
static int waits_since_look(struct exporter *x, uint64_t *waits);

void exporter_opts_init(struct exporter_opts *o)
{
	*o = (struct exporter_opts){ .grace_ns = 120 * 1000000000ULL, .top_preemptors = 3 };
}

static char *label_block(const char *prefix, const char *path, uint64_t id, const struct cgname *who)
{
	char buf[8192];
	struct expo t = {};

	/* Label values must be UTF-8: a name's broken bytes become U+FFFD. */
	metrics_cg_labels(&t, prefix, path ? utf8_valid(path, buf, sizeof(buf)) : "", id, who);
	/*
	 * Keep a copy of its own size. The writer's buffer starts at 64 KB,
	 * so keeping the buffer itself would cost that much address space for
	 * each cgroup.
	 */
	char *r = t.oom ? NULL : strndup(t.p, t.n);
	expo_free(&t);
	return r;
}

/* The entry of a cgroup met in a scrape: named once, from the cache. */
static struct xcg *xcg_get(struct exporter *x, uint64_t id)
{
	bool fresh;
	struct xcg *c = idtab_put(&x->tab, id, &fresh);

	if (!c || !fresh)
		return c;
	const char *path = session_cgroup_name(x->s, id);
	if (!path) {
		c->hidden = true; /* gone before it was ever seen: no name to give it */
		return c;
	}
	if (!(c->path = strdup(path))) {
		c->hidden = true; /* out of memory: shown as if gone, never half-named */
		return c;
	}
	const struct cgname *who = cgfs_who(&x->s->fs, id);
	if (who && (c->who = malloc(sizeof(*who))))
		*c->who = *who;
	c->labels = label_block("", c->path, id, x->o.no_name_labels ? NULL : c->who);
	c->labels_len = c->labels ? strlen(c->labels) : 0;
	return c;
}

static const char *by_labels(void *ctx, uint64_t id)
{
	struct exporter *x = ctx;
	struct xcg *c = xcg_get(x, id);

	/* Hidden: gone past its grace, or never named (gone before it was met): no series. */
	if (!c || c->hidden)
		return NULL;
	if (!c->by_labels)
		c->by_labels = label_block("by_", c->path, id, x->o.no_name_labels ? NULL : c->who);
	return c->by_labels;
}

static void prog_cb(void *ctx, const char *name, uint64_t run_ns, uint64_t runs)
{
	struct progs *ps = ctx;

	if (ps->n < ARRAY_SIZE(ps->p))
		ps->p[ps->n++] = (struct mx_prog){ name, run_ns, runs };
}

/* The process's own figures, as the Prometheus client libraries report them. */
static void self_process(struct mx_self *m)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	struct rlimit rl;

	m->cpu_ns = cpu_ns();
	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			/* After the command's closing parenthesis: field 3 (state) onwards. */
			const char *p = strrchr(buf, ')');
			unsigned long long vsize = 0, rss = 0;
			if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %llu %llu",
					&vsize, &rss) == 2) {
				m->vsize_bytes = vsize;
				m->rss_bytes = rss * (uint64_t)sysconf(_SC_PAGESIZE);
			}
		}
		fclose(f);
	}
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				m->open_fds++;
		closedir(d);
		m->open_fds--; /* the directory's own */
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		m->max_fds = rl.rlim_cur;
}

static bool bpf_stats_on(void)
{
	char c = '0';
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");

	if (f) {
		if (fread(&c, 1, 1, f) != 1)
			c = '0';
		fclose(f);
	}
	return c == '1';
}


static uint64_t at_least(uint64_t *shown, uint64_t v)
{
	if (v < *shown)
		return *shown;
	return *shown = v;
}

/* Counters never go back while the exporter runs (Prometheus would read a dip as a reset). */
static void monotonic(struct xcg *c, struct cg_counters *k)
{
	k->oncpu_ns = at_least(&c->shown_oncpu, k->oncpu_ns);
	k->some_ns = at_least(&c->shown_some, k->some_ns);
	uint64_t own = at_least(&c->shown_own, cg_own_quota_ns(k));
	k->thr_wait_ns = k->thr_inh_ns + own;
}

/* Room for n cgroups' rows, zeroed. 0 or -ENOMEM. */
static int rows_for(struct view *v, size_t n)
{
	if (n > v->cgcap) {
		struct mx_cg *cg = realloc(v->cg, n * sizeof(*cg));
		if (cg)
			v->cg = cg;
		struct kstat *ks = realloc(v->kfig, n * sizeof(*ks));
		if (ks)
			v->kfig = ks;
		uint64_t *val = realloc(v->values, n * CG_NCOUNTERS * sizeof(*val));
		if (val)
			v->values = val;
		struct mx_hist *rq = realloc(v->runq, n * sizeof(*rq));
		if (rq)
			v->runq = rq;
		if (!cg || !ks || !val || !rq)
			return -ENOMEM;
		v->cgcap = n;
	}
	if (n) {
		memset(v->cg, 0, n * sizeof(*v->cg));
		memset(v->kfig, 0, n * sizeof(*v->kfig));
	}
	return 0;
}

static void xcg_free_labels(struct xcg *c)
{
	free(c->labels);
	free(c->by_labels);
	c->labels = c->by_labels = NULL;
}

static void view_free(struct view *v)
{
	if (!v)
		return;
	metrics_cursor_free(&v->cur);
	snapshot_free(&v->snap);
	free(v->cg);
	free(v->kfig);
	free(v->values);
	free(v->runq);
	expo_free(&v->out);
	free(v);
}

/* A scrape's figures into v (in libmicrohttpd's thread, with the lock held): 0 or -errno. */
/* The episode's order: by cgroup, each one's in a run. */
static int cmp_ep(const void *a, const void *b)
{
	const struct cgs_episode *x = a, *y = b;

	return x->cgid < y->cgid ? -1 : x->cgid > y->cgid;
}

/*
 * Feed the throttle episodes the tracer collected into the period trackers
 * of their cgroups, and close the runs that have ended. A cgroup whose
 * grid no scrape has read yet does not count them. The tracer's list
 * belongs to the main thread, which polls its ring buffer. So the list is
 * taken outside the lock, and fed under it. A run is over once the period
 * after its last has passed without a throttle. Each episode is sent when
 * it ends, at its period's refill at the latest. So all episodes of that
 * period are in when the take began a whole period after it ended; hence
 * the take's time is used.
 */
void exporter_episodes(struct exporter *x)
{
	struct episode_log el;

	if (!x || !x->s)
		return;
	uint64_t at = now_ns();
	tracer_pending(&x->s->tr, &x->pending); /* out of memory: none, the runs closed as before */
	tracer_take_episodes(&x->s->tr, &el);
	if (el.n)
		qsort(el.e, el.n, sizeof(*el.e), cmp_ep);
	exporter_lock(x);
	for (size_t i = 0, j; i < el.n; i = j) {
		for (j = i + 1; j < el.n && el.e[j].cgid == el.e[i].cgid;)
			j++;
		struct xcg *c = idtab_find(&x->tab, el.e[i].cgid);
		if (c && c->per && period_track_add(c->per, &el.e[i], j - i))
			cgs_warn("period by period: out of memory");
	}
	for (size_t i = 0; i < x->tab.cap; i++) {
		struct xcg *c = idtab_at(&x->tab, i);
		if (c && c->per)
			period_track_close(c->per, at, cg_pending_has(&x->pending, c->id));
	}
	x->episodes_lost += el.truncated;
	exporter_unlock(x);
	free(el.e);
}

/*
 * Where a cgroup's count of throttled periods begins: in the period in
 * progress when the kernel's figures were read. The timer's next expiry is
 * read with them. cpu.stat's count from that read has that period's
 * refill, but not the periods before it. Beginning at the scrape's start
 * would be wrong: the maps are read first, so a refill between the start
 * and the read would count on both sides.
 *
 * An expiry not ahead of read_ns (taken before the pass) means the timer
 * is idle, with no period in progress. An expiry up to two periods ahead
 * is fine: a refill during the pass moved the expiry a period on, and the
 * period ending there is still the one in progress at the read.
 */
static uint64_t counted_from(const struct kstat *k, uint64_t read_ns)
{
	uint64_t p = k->period_us * 1000;

	if (p && k->period_end_ns > read_ns && k->period_end_ns - read_ns <= 2 * p)
		return k->period_end_ns - p / 2;
	return read_ns;
}

static int gather(struct exporter *x, struct view *v)
{
	struct session *s = x->s;
	struct snapshot *cur = &v->snap;
	uint64_t w0 = now_ns();
	int err;

	if ((err = snapshot_take(&s->tr, cur, &(struct snapshot_how){ .totals = true }))) {
		cgs_warn("scrape: reading the BPF maps failed: %s", strerror(-err));
		return err;
	}
	uint64_t k_at = now_ns(); /* the kernel's figures are read after it */
	/* No kernel figures this time rather than stale ones, when the pass fails. */
	bool kfigs = x->ks_open && !kstat_src_refresh(&x->ks);

	if ((err = rows_for(v, cur->n)))
		return err;
	struct mx_cg *cg = v->cg;
	struct kstat *ks = v->kfig;
	size_t n = 0, grace = 0;
	uint64_t nremoved = s->fs.nremoved;
	bool removed = nremoved != x->nremoved;
	x->nremoved = nremoved;
	for (size_t i = 0; i < cur->n; i++) {
		/* Its entry in the table, a few cgroups ahead (idtab_prefetch): each was a miss. */
		if (i + PREFETCH_AHEAD < cur->n)
			idtab_prefetch(&x->tab, cur->cg[i + PREFETCH_AHEAD].id);
		struct xcg *c = xcg_get(x, cur->cg[i].id);
		bool first = c && !c->seen;
		if (c)
			c->seen = x->scrapes + 1; /* this scrape's number (counted below) */
		if (!c || c->hidden || !c->labels)
			continue;
		if (c->gone_ns && w0 - c->gone_ns > x->o.grace_ns) {
			c->hidden = true; /* its last figures had their grace period: gone for good */
			if (!x->answering)
				xcg_free_labels(c); /* else the tick's, once no answer shows them */
			continue;
		}
		/*
		 * Check whether this read reported it removed; the periodic check
		 * stats only where removals are not reported. Look only if a
		 * removal was reported since the last scrape, or the cgroup is new
		 * to this one.
		 */
		if (!c->gone_ns && (first || removed) && cgfs_told_removed(&s->fs, c->id))
			c->gone_ns = w0;
		grace += !!c->gone_ns;
		monotonic(c, &cur->cg[i].c);
		metrics_take_figures(&cur->cg[i].c, v->values, v->runq, cur->n, n);
		cg[n] = (struct mx_cg){ .id = c->id, .labels = c->labels, .labels_len = c->labels_len,
					.s = &cur->cg[i], .who = c->who,
					.named = !x->o.no_name_labels };
		if (kfigs && !c->gone_ns && !kstat_src_get_at(&x->ks, c->id, c->path, &c->krec, &ks[n]))
			cg[n].k = &ks[n];
		/* Period by period where a quota and its grid are known (counted from the first such scrape). */
		if (cg[n].k && cg[n].k->quota_us >= 0 && cg[n].k->period_end_ns && !c->per &&
		    (c->per = calloc(1, sizeof(*c->per))))
			c->per->from_ns = counted_from(cg[n].k, k_at); /* the periods before: not counted */
		if (c->per && cg[n].k && cg[n].k->quota_us >= 0 && cg[n].k->period_end_ns)
			period_track_grid(c->per, cg[n].k->period_us * 1000, cg[n].k->period_end_ns);
		if (c->per && c->per->period_ns)
			cg[n].per = c->per;
		if (x->dem)
			cg[n].dem = demand_all_find(x->dem, c->id);
		/* A file per cgroup and scrape: only with --why, whose cost is already asked for. */
		bool host;
		if (x->why && s->fs.version == 2 && !c->gone_ns &&
		    !psi_read_cgroup(&s->fs, c->path, &cg[n].psi_us, &host) && !host)
			cg[n].psi_ok = true;
		n++;
	}
	v->progs.n = 0;
	tracer_prog_stats(&s->tr, prog_cb, &v->progs);
	v->in = (struct metrics_input){
		.why = x->why,
		.split = x->split,
		.n = n,
		.cg = cg,
		.snap = cur,
		.values = v->values,
		.stride = cur->n,
		.runq = v->runq,
		.dem = x->dem,
		.top_preemptors = x->o.top_preemptors,
		.by_labels = by_labels,
		.ctx = x,
		.self = {
			.version = CGS_VERSION,
			.backend = s->tr.backend,
			.thr_backend = s->tr.thr_backend,
			.kstat_method = kstat_method_name(x->ks.method),
			.cgroup_version = s->fs.version,
			.cg_used = cur->slots_used,
			.recycled = cur->slots_recycled,
			.cg_max = s->tr.max_cgroups,
			.pre_used = cur->npre,
			.pre_max = s->tr.max_preempt,
			.shown = n,
			.grace = grace,
			.bpf_stats = bpf_stats_on(),
			.episodes_lost = x->episodes_lost,
			.nprogs = v->progs.n,
			.progs = v->progs.p,
			.scrapes = ++x->scrapes,
			.start_time = x->start_time,
		},
	};
	v->in.host_psi_ok = !psi_read_host(&v->in.host_psi_us);
	self_process(&v->in.self);
	return 0;
}

/* A scrape begins (http_source.open): a free view, its figures gathered now. */
static void *answer_open(void *ctx, enum expo_format f, int *err)
{
	struct exporter *x = ctx;
	uint64_t w0 = now_ns(), c0 = thread_cpu_ns();
	struct view *v = NULL;

	pthread_mutex_lock(&x->lock);
	*err = -EAGAIN;
	if (!x->s)
		goto out;
	*err = -EBUSY;
	for (size_t i = 0; i < VIEWS_MAX && !v; i++) {
		if (!x->views[i] && !(x->views[i] = calloc(1, sizeof(*v)))) {
			*err = -ENOMEM;
			break;
		}
		if (!x->views[i]->busy)
			v = x->views[i];
	}
	if (!v)
		goto out;
	v->x = x;
	v->snap.no_oncpu_slots = true; /* no family shows slice lengths */
	if ((*err = gather(x, v))) {
		v = NULL;
		goto out;
	}
	metrics_cursor_free(&v->cur);
	metrics_cursor_init(&v->cur);
	v->out.fmt = f;
	v->out.n = v->sent = 0;
	v->out.oom = false;
	expo_reserve(&v->out, PIECE_BYTES + PIECE_BYTES / 8);
	v->done = false;
	v->busy = true;
	x->answering++;
	v->cpu_ns = thread_cpu_ns() - c0;
	v->wall_ns = now_ns() - w0;
out:
	pthread_mutex_unlock(&x->lock);
	return v;
}

/* The next piece, rendered under the lock (by_labels names preemptors from the cache). */
static void render_piece(struct view *v)
{
	struct exporter *x = v->x;
	uint64_t w0 = now_ns(), c0 = thread_cpu_ns();

	pthread_mutex_lock(&x->lock);
	v->out.n = v->sent = 0;
	v->done = metrics_render_some(&v->out, &v->in, &v->cur, PIECE_BYTES);
	v->cpu_ns += thread_cpu_ns() - c0;
	v->wall_ns += now_ns() - w0;
	if (v->done) {
		expo_family(&v->out, "cgsched_scrape_cpu_seconds", EXPO_GAUGE,
			    "CPU time this scrape took to gather and render, the sending between its pieces not counted");
		expo_sample_sec(&v->out, NULL, NULL, v->cpu_ns);
		expo_family(&v->out, "cgsched_scrape_duration_seconds", EXPO_GAUGE,
			    "Wall time this scrape took to gather and render, the sending between its pieces not counted");
		expo_sample_sec(&v->out, NULL, NULL, v->wall_ns);
		expo_finish(&v->out);
	}
	pthread_mutex_unlock(&x->lock);
}

/* http_source.read: the rest of the piece at hand, or the next one. */
static ssize_t answer_read(void *answer, char *buf, size_t max)
{
	struct view *v = answer;

	if (v->sent == v->out.n) {
		if (v->done)
			return 0;
		render_piece(v);
	}
	if (v->out.oom)
		return -1; /* cut short: the client sees a broken body, never a partial one that parses */
	size_t n = v->out.n - v->sent < max ? v->out.n - v->sent : max;
	memcpy(buf, v->out.p + v->sent, n);
	v->sent += n;
	return n;
}

static void answer_close(void *answer)
{
	struct view *v = answer;
	struct exporter *x = v->x;

	pthread_mutex_lock(&x->lock);
	v->busy = false;
	x->answering--;
	/* The first view stays for the next scrape; one for an overlapping scrape goes. */
	for (size_t i = 1; i < VIEWS_MAX; i++)
		if (x->views[i] == v) {
			view_free(v);
			x->views[i] = NULL;
		}
	pthread_mutex_unlock(&x->lock);
}

int exporter_open(struct exporter **out, const struct exporter_opts *o)
{
	struct exporter *x = calloc(1, sizeof(*x));
	char err[PATH_MAX + 256];
	struct http_opts ho;
	struct timespec ts;

	*out = NULL;
	if (!x) {
		cgs_err("out of memory");
		return CGS_EXIT_USAGE;
	}
	x->o = *o;
	if (!x->o.listen)
		x->o.listen = EXPORT_LISTEN_DEFAULT;
	x->tab = (struct idtab)IDTAB_INIT(struct xcg);
	pthread_mutex_init(&x->lock, NULL);
	clock_gettime(CLOCK_REALTIME, &ts);
	x->start_time = ts.tv_sec + ts.tv_nsec / 1e9;
	if (o->web_config) {
		if (webconfig_load(o->web_config, &x->wc[0], err, sizeof(err))) {
			cgs_err("--web-config %s", err);
			goto fail;
		}
		x->have_wc = true;
	}
	ho = (struct http_opts){
		.listen = x->o.listen,
		.wc = x->have_wc ? &x->wc[0] : NULL,
		.src = { .open = answer_open, .read = answer_read, .close = answer_close, .health = health,
			 .health_open = x->o.health_open, .ctx = x },
	};
	if (http_start(&x->http, &ho, err, sizeof(err))) {
		cgs_err("%s", err);
		goto fail;
	}
	*out = x;
	return 0;
fail:
	exporter_close(x);
	return CGS_EXIT_USAGE;
}

int exporter_attach(struct exporter *x, struct session *s, bool why, bool split, struct demand_all *dem)
{
	exporter_lock(x);
	x->dem = dem;
	/* The iterator where the kernel has it (one pass for every cgroup), else the files. */
	x->ks_open = !kstat_src_open(&x->ks, &s->fs, KSTAT_AUTO);
	x->s = s;
	x->why = why;
	x->split = split; /* --why implies it (metrics.c traced_now) */
	x->last_check_ns = now_ns();
	exporter_unlock(x);
	return 0;
}

const char *exporter_url(const struct exporter *x)
{
	return http_url(x->http);
}

void exporter_lock(struct exporter *x)
{
	if (x)
		pthread_mutex_lock(&x->lock);
}

void exporter_unlock(struct exporter *x)
{
	if (x)
		pthread_mutex_unlock(&x->lock);
}

/*
 * The run-queue waits since the last look, summed over the cgroups: a
 * cgroup's new count less its count then (all of it if new). A cgroup
 * gone since takes none of its waits back. 0, or -errno if the maps
 * could not be read. Under the lock.
 */
static int waits_since_look(struct exporter *x, uint64_t *waits)
{
	struct snapshot *s = &x->look;
	int err;

	*waits = 0;
	if ((err = snapshot_take(&x->s->tr, s, &(struct snapshot_how){ .light = true })))
		return err;
	struct look_waits *w = s->n ? malloc(s->n * sizeof(*w)) : NULL;
	if (s->n && !w)
		return -ENOMEM;
	/* Both sorted by id (a snapshot's cgroups are). */
	for (size_t i = 0, j = 0; i < s->n; i++) {
		uint64_t id = s->cg[i].id, n = s->cg[i].c.runq_count;
		while (j < x->nwaits && x->waits[j].id < id)
			j++;
		bool was = j < x->nwaits && x->waits[j].id == id && x->waits[j].count <= n;
		*waits += was ? n - x->waits[j].count : n;
		w[i] = (struct look_waits){ id, n };
	}
	free(x->waits);
	x->waits = w;
	x->nwaits = s->n;
	return 0;
}

/*
 * The drop counters now against the last look. A rise that top would call
 * notable (drops_notable, against the run-queue waits between the two
 * looks) is remembered for /readyz. Under the lock.
 */
static void look_at_drops(struct exporter *x, uint64_t now)
{
	uint64_t d[CGS_DROP__COUNT], rise[CGS_DROP__COUNT], notable[CGS_DROP__COUNT], waits;
	struct snapshot ds = { 0 };
	int err = snapshot_take(&x->s->tr, &ds, &(struct snapshot_how){ .drops = true });

	memcpy(d, ds.drops, sizeof(d));
	snapshot_free(&ds);
	if (err || waits_since_look(x, &waits))
		return;
	/*
	 * The first look sets the base. The drops before it, of the tracing's
	 * start (tasks waiting when the programs attached, each CPU's first
	 * switch), are the metrics' to tell.
	 */
	if (x->looked) {
		for (int i = 0; i < CGS_DROP__COUNT; i++)
			rise[i] = d[i] > x->drops[i] ? d[i] - x->drops[i] : 0;
		if (drops_notable(rise, waits, notable)) {
			x->drops_rose_ns = now;
			memcpy(x->rose_by, notable, sizeof(notable));
		}
	}
	memcpy(x->drops, d, sizeof(d));
	x->looked = true;
}

/* How long a drop keeps /readyz at 503, and how long the loop may be silent. */
#define READY_DROP_NS (60 * 1000000000ULL)
#define READY_TICK_NS (10 * 1000000000ULL)

/*
 * /healthz is true if the server answers; this runs on its thread. /readyz
 * is true if the programs are attached, the command's loop is alive (it
 * ticks every second), and no look in the last minute (one every 5 s)
 * saw drops that matter, as top judges them (drops_notable). The figures
 * a scrape gets now are then whole.
 */
static int health(void *ctx, bool ready, char *buf, size_t n)
{
	struct exporter *x = ctx;
	uint64_t now = now_ns();
	int bad = 0;

	if (!ready) {
		snprintf(buf, n, "ok\n");
		return 0;
	}
	exporter_lock(x);
	if (!x->s) {
		bad = snprintf(buf, n, "not ready: not tracing yet\n");
	} else if (!x->tick_ns) {
		bad = snprintf(buf, n, "not ready: starting (the command's loop has not run yet)\n");
	} else if (now - x->tick_ns > READY_TICK_NS) {
		bad = snprintf(buf, n, "not ready: the command's loop last ran %.0f s ago\n", (now - x->tick_ns) / 1e9);
	} else if (x->drops_rose_ns && now - x->drops_rose_ns < READY_DROP_NS) {
		/* Every counter that rose, by how much, at the last look that saw it. */
		size_t at = (size_t)snprintf(buf, n, "not ready: drops rose %.0f s ago:", (now - x->drops_rose_ns) / 1e9);
		for (int i = 0; i < CGS_DROP__COUNT && at < n; i++)
			if (x->rose_by[i])
				at += (size_t)snprintf(buf + at, n - at, " %s +%llu", drop_name(i),
						       (unsigned long long)x->rose_by[i]);
		if (at < n)
			snprintf(buf + at, n - at, " (figures incomplete; see cgsched_drops_total)\n");
		bad = 1;
	} else {
		snprintf(buf, n, "ready: tracing, the loop ran %.1f s ago, no drops that matter in the last minute\n",
			 (now - x->tick_ns) / 1e9);
	}
	exporter_unlock(x);
	return bad ? 1 : 0;
}

void exporter_tick(struct exporter *x)
{
	uint64_t now = now_ns();

	/* A stat per cgroup: every 5 s is enough for a grace period of minutes. */
	if (!x || !x->s)
		return;
	if (now - x->last_check_ns < 5000000000ULL) {
		exporter_lock(x);
		x->tick_ns = now;
		exporter_unlock(x);
		return;
	}
	exporter_lock(x);
	look_at_drops(x, now);
	x->tick_ns = now;
	x->last_check_ns = now;
	/* No answer in flight shows a cgroup's labels or name: they may go. */
	bool quiet = !x->answering;
	if (quiet && x->dem)
		demand_all_sweep(x->dem, now, x->o.grace_ns);
	uint64_t *drop = NULL;
	size_t ndrop = 0;
	for (size_t i = 0; i < x->tab.cap; i++) {
		struct xcg *c = idtab_at(&x->tab, i);
		const char *last;
		if (c && !c->hidden && !c->gone_ns && !cgfs_path(&x->s->fs, c->id, true, &last))
			c->gone_ns = now;
		/*
		 * Gone past its grace and not in the figures, which a render would
		 * hide: a cgroup named only as a preemptor (by_cgroup), outside
		 * --cgroup. Hide it now, and drop it below once no scrape meets it.
		 */
		if (c && !c->hidden && c->gone_ns && now - c->gone_ns > x->o.grace_ns)
			c->hidden = true;
		if (c && c->hidden && quiet)
			xcg_free_labels(c);
		/*
		 * Hidden and no longer in the figures: the tracer dropped its
		 * parked figures. It cannot come back, so drop its entry. Otherwise
		 * a host where containers come and go would grow the table forever.
		 */
		if (c && c->hidden && quiet && c->seen != x->scrapes && (drop || (drop = calloc(x->tab.cap, sizeof(*drop)))))
			drop[ndrop++] = c->id;
	}
	for (size_t i = 0; i < ndrop; i++) {
		struct xcg *c = idtab_find(&x->tab, drop[i]);
		xcg_free_labels(c);
		free(c->path);
		free(c->who);
		free(c->per);
		idtab_del(&x->tab, drop[i]);
	}
	free(drop);
	exporter_unlock(x);
}

void exporter_reload(struct exporter *x, void (*say)(const char *line))
{
	char err[PATH_MAX + 256], line[PATH_MAX + 512];
	int next = !x->wcur;

	if (!x->have_wc)
		return; /* nothing to reload: plain HTTP, no users */
	bool loaded = !webconfig_load(x->o.web_config, &x->wc[next], err, sizeof(err));
	/* Unchanged users keep their remembered passwords, and addresses their bcrypt budgets. */
	if (loaded)
		webconfig_carry(&x->wc[next], &x->wc[x->wcur]);
	if (!loaded) {
		snprintf(line, sizeof(line), "web config reload failed, keeping the one in force: %s", err);
	} else if (http_restart(&x->http, &x->wc[next], x->o.listen, err, sizeof(err))) {
		webconfig_free(&x->wc[next]);
		snprintf(line, sizeof(line), "web config %s: not taken, keeping the one in force: %s", x->o.web_config, err);
	} else {
		webconfig_free(&x->wc[x->wcur]);
		x->wcur = next;
		snprintf(line, sizeof(line), "web config %s reloaded: %s, %zu user%s", x->o.web_config,
			 x->wc[next].cert_pem ? "TLS" : "plain HTTP", x->wc[next].nusers, x->wc[next].nusers == 1 ? "" : "s");
	}
	if (say)
		say(line);
	else
		fprintf(stderr, "cgsched: %s\n", line);
}

void exporter_close(struct exporter *x)
{
	if (!x)
		return;
	/* The server first: no scrape may run on what is freed below. */
	http_stop(x->http);
	for (size_t i = 0; i < x->tab.cap; i++) {
		struct xcg *c = idtab_at(&x->tab, i);
		if (c) {
			free(c->labels);
			free(c->by_labels);
			free(c->path);
			free(c->who);
		}
	}
	idtab_free(&x->tab);
	cg_pending_free(&x->pending);
	for (size_t i = 0; i < VIEWS_MAX; i++)
		view_free(x->views[i]);
	snapshot_free(&x->look);
	free(x->waits);
	if (x->ks_open)
		kstat_src_close(&x->ks);
	if (x->have_wc)
		webconfig_free(&x->wc[x->wcur]);
	pthread_mutex_destroy(&x->lock);
	free(x);
}
