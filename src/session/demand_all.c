// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* export's demand per period of every cgroup, and its advice (demand_all.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cgroupfs.h"
#include "lib/util.h"
#include "limits/advise.h"
#include "limits/cpu_limits.h"
#include "session/demand_all.h"
#include "session/session.h"
#include "trace/per_steps.h"

/* How often the cgroups' grids and CPUs are looked at. */
#define PASS_NS 5000000000ULL
/* The most time between two advices of one cgroup (less for a window under 10 minutes). */
#define ADVISE_EVERY_NS 60000000000ULL
/* A tick's share of the round of advice: it stops once it used this much CPU. */
#define ADVISE_BUDGET_NS 300000ULL
/* The kernel's default bandwidth slice (sched_cfs_bandwidth_slice_us), where the file cannot be read. */
#define SLICE_US_DEFAULT 5000

struct dem_ref {
	uint64_t id;
	struct dem_cg *c;
};

static uint64_t slice_us = SLICE_US_DEFAULT;

double demand_bucket_le(unsigned i)
{
	return exp2(DEM_OCT_LO + (double)i / DEM_PER_OCT);
}

const char *demand_bucket_le_text(const struct demand_all *d, unsigned i)
{
	return i < d->nbuckets ? d->le[i] : "+Inf";
}

unsigned demand_bucket_of(uint64_t ns, uint64_t period_ns, unsigned nbuckets)
{
	if (!ns || !period_ns)
		return 0;
	double x = (double)ns / (double)period_ns, i = ceil(DEM_PER_OCT * (log2(x) - DEM_OCT_LO) - 1e-9);

	return i < 1 ? 1 : i >= nbuckets - 1 ? nbuckets - 1 : (unsigned)i;
}

/* The smallest demand code 1 stands for: code 254 is the whole machine for a period. */
static double code_base(uint64_t period_ns, int ncpus)
{
	return (double)period_ns * (ncpus > 0 ? ncpus : 1) / exp2(253.0 / DEM_PER_OCT);
}

uint8_t demand_code(uint64_t ns, uint64_t period_ns, int ncpus)
{
	if (!ns)
		return 0;
	double c = 1 + round(DEM_PER_OCT * log2((double)ns / code_base(period_ns, ncpus)));

	return c < 1 ? 1 : c > 254 ? 254 : (uint8_t)c;
}

uint64_t demand_uncode(uint8_t c, uint64_t period_ns, int ncpus)
{
	if (!c || c == DEM_CODE_NONE)
		return 0;
	return (uint64_t)llround(code_base(period_ns, ncpus) * exp2((double)(c - 1) / DEM_PER_OCT));
}

static struct dem_cg *find(const struct demand_all *d, uint64_t id)
{
	struct dem_ref *r = idtab_find(&d->cgs, id);

	return r ? r->c : NULL;
}

const struct dem_cg *demand_all_find(const struct demand_all *d, uint64_t id)
{
	return find(d, id);
}

static int64_t period_of(const struct dem_cg *c, uint64_t t)
{
	int64_t rel = (int64_t)(t - c->origin_ns);

	return rel >= 0 ? rel / (int64_t)c->period_ns : -((-rel + (int64_t)c->period_ns - 1) / (int64_t)c->period_ns);
}

static uint64_t period_start(const struct dem_cg *c, int64_t p)
{
	return c->origin_ns + (uint64_t)(p * (int64_t)c->period_ns);
}

/* Begin c's periods on grid (origin, period) afresh: from the one at time t, counted from the next. */
static void grid_set(struct dem_cg *c, uint64_t origin, uint64_t period, bool own, uint64_t t)
{
	bool longer = c->period_ns != period;

	c->origin_ns = origin % period;
	c->period_ns = period;
	c->own_quota = own;
	c->first_open = period_of(c, t);
	c->valid_ns = period_start(c, c->first_open + 1);
	memset(c->open, 0, DEM_OPEN * sizeof(*c->open));
	if (longer) {
		/* The window's periods and the advice are of one length. */
		c->wn = c->whead = 0;
		c->win_new = 0;
		c->adv = (struct dem_advice){ 0 };
		c->cpus_max = 0;
	}
}

static struct dem_cg *node_new(struct demand_all *d, uint64_t id, uint64_t t)
{
	struct dem_cg *c = calloc(1, sizeof(*c));
	struct dem_ref *r;
	bool fresh;

	if (!c)
		return NULL;
	if (!(c->open = calloc(DEM_OPEN, sizeof(*c->open))) ||
	    !(c->cpu_bits = calloc((d->ncpus + 63) / 64, sizeof(*c->cpu_bits))) || !(r = idtab_put(&d->cgs, id, &fresh)))
		goto fail;
	r->c = c;
	c->id = id;
	grid_set(c, 0, PER_DEFAULT_PERIOD_NS, false, t);
	return c;
fail:
	free(c->open);
	free(c->cpu_bits);
	free(c);
	return NULL;
}

/* Cgroup id's node, made with those above it that are missing; t: the time its figures begin. */
static struct dem_cg *node_get(struct demand_all *d, uint64_t id, uint64_t t)
{
	struct dem_cg *c = find(d, id), *child = NULL, *first = NULL;
	char parent[4096];

	if (c)
		return c;
	for (int depth = 0; depth < CGS_MAX_DEPTH && id; depth++) {
		bool had = (c = find(d, id)) != NULL;
		if (!c && !(c = node_new(d, id, t)))
			break;
		if (child)
			child->parent = c;
		if (!first)
			first = c;
		if (had)
			break;
		const char *path = session_cgroup_name(d->s, id);
		if (!path || !strcmp(path, "/") || !*path)
			break;
		cgpath_parent(path, parent, sizeof(parent));
		uint64_t pid = 0;
		if (cgfs_id(&d->s->fs, parent, &pid) || pid == id)
			break;
		child = c;
		id = pid;
	}
	return first;
}

/* A step of a slot's cgroup: into the open period its middle falls in, for it and each cgroup above. */
static void on_step(void *ctx, uint64_t id, uint64_t start, uint64_t step, uint64_t ns)
{
	struct demand_all *d = ctx;
	uint64_t mid = start + step / 2;
	struct dem_cg *own = node_get(d, id, start);

	/* A slot new to the reads: put it on its quota's grid right after this read. */
	if (own && !own->gridded && !ARRAY_GROW(d->regrid, d->nregrid, d->regrid_cap, 16)) {
		own->gridded = true;
		d->regrid[d->nregrid++] = id;
	}
	for (struct dem_cg *c = own; c; c = c->parent) {
		int64_t p = period_of(c, mid);
		if (p < c->first_open || p >= c->first_open + DEM_OPEN) {
			d->late_steps += period_start(c, p) >= c->valid_ns;
			continue;
		}
		uint64_t *v = &c->open[p % DEM_OPEN];
		if (*v != UINT64_MAX)
			*v += ns;
	}
}

/* Mark the open periods of c and those above it that overlap [from, to) incomplete. */
static void mark_incomplete(struct dem_cg *c, uint64_t from, uint64_t to)
{
	for (; c; c = c->parent) {
		int64_t p0 = period_of(c, from), p1 = period_of(c, to > from ? to - 1 : from);
		for (int64_t p = p0 < c->first_open ? c->first_open : p0; p <= p1 && p < c->first_open + DEM_OPEN; p++)
			c->open[p % DEM_OPEN] = UINT64_MAX;
	}
}

static void on_lost(void *ctx, uint64_t id, uint64_t from, uint64_t to)
{
	struct demand_all *d = ctx;
	struct dem_cg *c = node_get(d, id, from);

	mark_incomplete(c, from, to);
}

static size_t window_periods(const struct demand_all *d, const struct dem_cg *c)
{
	uint64_t n = d->o.window_ns / c->period_ns;

	return n < 1 ? 1 : n > DEM_WINDOW_MAX ? DEM_WINDOW_MAX : (size_t)n;
}

static void win_push(struct demand_all *d, struct dem_cg *c, uint8_t code)
{
	size_t want = window_periods(d, c);

	if (!c->win) {
		if (!(c->win = malloc(want)))
			return;
		c->wcap = want;
	}
	if (c->wcap != want) {
		/* A new period length: a window of another size. */
		free(c->win);
		c->win = NULL;
		c->wn = c->whead = 0;
		win_push(d, c, code);
		return;
	}
	if (c->wn < c->wcap) {
		c->win[(c->whead + c->wn++) % c->wcap] = code;
	} else {
		c->win[c->whead] = code;
		c->whead = (c->whead + 1) % c->wcap;
	}
	c->win_new++;
}

static void hist_add(struct demand_all *d, struct dem_cg *c, uint64_t ns)
{
	unsigned b = demand_bucket_of(ns, c->period_ns, d->nbuckets);

	if (!c->bucket) {
		if (!(c->bucket = calloc(d->nbuckets, sizeof(*c->bucket))))
			return;
		c->blo = c->bhi = b;
	}
	c->bucket[b]++;
	c->blo = b < c->blo ? b : c->blo;
	c->bhi = b > c->bhi ? b : c->bhi;
}

/* Close every period of c that ends by done. */
static void close_periods(struct demand_all *d, struct dem_cg *c, uint64_t done)
{
	while (period_start(c, c->first_open + 1) <= done) {
		uint64_t *v = &c->open[c->first_open % DEM_OPEN];
		if (period_start(c, c->first_open) >= c->valid_ns) {
			if (*v == UINT64_MAX) {
				c->incomplete++;
				win_push(d, c, DEM_CODE_NONE);
			} else {
				c->periods++;
				c->sum_ns += *v;
				hist_add(d, c, *v);
				win_push(d, c, demand_code(*v, c->period_ns, d->ncpus));
			}
		}
		*v = 0;
		c->first_open++;
	}
}

/* The grid of the nearest quota at or above c, or the default. */
static const struct dem_cg *quota_above(const struct dem_cg *c)
{
	for (; c; c = c->parent)
		if (c->own_quota)
			return c;
	return NULL;
}

/* Put c's slot on the grid of the quota that limits it. Its steps dropped meanwhile leave periods incomplete. */
static void slot_grid(struct demand_all *d, struct dem_cg *c, uint64_t now)
{
	if (!c)
		return;
	const struct dem_cg *q = quota_above(c);
	struct per_grid g = { q ? q->origin_ns : 0, q ? q->period_ns : PER_DEFAULT_PERIOD_NS };
	if (tracer_per_grid(&d->s->tr, c->id, &g) == 1)
		mark_incomplete(c, d->done_ns, now + g.period_ns);
}

static void read_steps(struct demand_all *d, uint64_t now)
{
	struct per_sink sink = { .step = on_step, .lost = on_lost, .ctx = d };
	uint64_t done;

	d->nregrid = 0;
	if (tracer_per_read(&d->s->tr, now, &sink, &done))
		return;
	for (size_t i = 0; i < d->nregrid; i++)
		slot_grid(d, find(d, d->regrid[i]), now);
	d->reads++;
	if (done <= d->done_ns)
		return;
	d->done_ns = done;
	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dem_ref *r = idtab_at(&d->cgs, i);
		if (r)
			close_periods(d, r->c, done);
	}
}

/* A cgroup's figures from the pass: its grid, from its quota where it has one and the timer's phase is known. */
static void pass_one(void *ctx, uint64_t id, const char *path, const struct kstat *k)
{
	struct demand_all *d = ctx;
	bool quota = k->ok && k->quota_us > 0 && k->period_us && k->period_end_ns;
	struct dem_cg *c = quota ? node_get(d, id, d->done_ns) : find(d, id);

	(void)path;
	if (k->ok)
		d->burst = k->has_bursts;
	if (!c)
		return;
	c->gone = false;
	uint64_t P = quota ? k->period_us * 1000 : PER_DEFAULT_PERIOD_NS;
	uint64_t origin = quota ? k->period_end_ns % P : 0;
	if (c->period_ns != P || c->origin_ns != origin || c->own_quota != quota)
		grid_set(c, origin, P, quota, d->done_ns);
}

static void on_cpu(void *ctx, uint64_t id, int cpu)
{
	struct demand_all *d = ctx;

	for (struct dem_cg *c = find(d, id); c; c = c->parent)
		c->cpu_bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static void pass(struct demand_all *d, uint64_t now)
{
	d->passes++;
	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dem_ref *r = idtab_at(&d->cgs, i);
		if (r)
			r->c->gone = true;
	}
	/* Without a pass, no cgroup is taken for gone. */
	bool seen = d->ks_open && !kstat_src_refresh(&d->ks) && !kstat_src_all(&d->ks, pass_one, d);
	tracer_per_cpus(&d->s->tr, on_cpu, d);
	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dem_ref *r = idtab_at(&d->cgs, i);
		if (!r)
			continue;
		struct dem_cg *c = r->c;
		if (!seen)
			c->gone = false;
		if (c->gone && !c->gone_ns)
			c->gone_ns = now;
		else if (!c->gone)
			c->gone_ns = 0;
		unsigned n = 0;
		for (int w = 0; w < (d->ncpus + 63) / 64; w++) {
			n += __builtin_popcountll(c->cpu_bits[w]);
			c->cpu_bits[w] = 0;
		}
		c->cpus = n;
		c->cpus_max = n > c->cpus_max ? n : c->cpus_max;
		/* Its slot's steps on the grid of the quota that limits it. */
		if (!c->gone)
			slot_grid(d, c, now);
	}
}

/* The advice from c's window, as `cgsched advise` gives it (cmd_advise.c). */
static void advise_one(struct demand_all *d, struct dem_cg *c, uint64_t now, uint64_t **buf, size_t *cap)
{
	size_t n = 0;
	uint8_t top = 0;

	c->win_new = 0;
	c->adv.at_ns = now;
	if (*cap < c->wn) {
		uint64_t *b = realloc(*buf, c->wn * sizeof(**buf));
		if (!b)
			return;
		*buf = b;
		*cap = c->wn;
	}
	for (size_t i = 0; i < c->wn; i++) {
		uint8_t code = c->win[(c->whead + i) % c->wcap];
		if (code == DEM_CODE_NONE)
			continue;
		top = code > top ? code : top;
		(*buf)[n++] = demand_uncode(code, c->period_ns, d->ncpus) / 1000;
	}
	c->wmax_code = top;
	if (n < ADVISE_MIN_PERIODS) {
		c->adv.ok = false;
		return;
	}
	uint64_t period = c->period_ns / 1000, step = period / 100 > CGS_QUOTA_MIN_US ? period / 100 : CGS_QUOTA_MIN_US;
	unsigned used = c->cpus_max ? c->cpus_max : 1;
	uint64_t headroom = advise_headroom_us(used, used, (int64_t)slice_us, d->ncpus);
	const uint64_t *dp = *buf;
	struct advice ad;
	if (advise(&dp, 1, n, period, d->o.target, step, d->burst, d->ncpus > 0 ? (unsigned)d->ncpus : 1, headroom, &ad))
		return;
	c->adv = (struct dem_advice){ .ok = true, .n = n, .quota_ns = ad.quota_us * 1000,
				      .burst_ok = ad.burst_ok, .bq_quota_ns = ad.bq_quota_us * 1000,
				      .bq_burst_ns = ad.bq_burst_us * 1000, .at_ns = now };
}

/* Go on with the round of advice for a share of a tick's CPU. */
static void advise_round(struct demand_all *d, uint64_t now)
{
	uint64_t c0 = thread_cpu_ns(), every = d->o.window_ns / 10 < ADVISE_EVERY_NS ? d->o.window_ns / 10 : ADVISE_EVERY_NS;
	size_t k = 0, start = d->advise_at % d->cgs.cap;

	/* The clock is read after each advice only: a read is a system call, and most cgroups need none. */
	for (; k < d->cgs.cap; k++) {
		struct dem_ref *r = idtab_at(&d->cgs, (start + k) % d->cgs.cap);
		if (!r)
			continue;
		struct dem_cg *c = r->c;
		/* A first advice as soon as it has enough periods; then one a tenth of the window, a minute at most. */
		if (c->win_new && (c->adv.ok ? now - c->adv.at_ns >= every : c->wn >= ADVISE_MIN_PERIODS)) {
			advise_one(d, c, now, &d->buf, &d->bufcap);
			if (thread_cpu_ns() - c0 >= ADVISE_BUDGET_NS) {
				k++;
				break;
			}
		}
	}
	d->advise_at = (start + k) % d->cgs.cap;
}

int demand_all_tick(struct demand_all *d, uint64_t now)
{
	uint64_t c0 = thread_cpu_ns();

	if (now >= d->next_read_ns) {
		read_steps(d, now);
		d->next_read_ns = tracer_per_due(&d->s->tr, now);
	}
	if (now >= d->next_pass_ns) {
		pass(d, now);
		d->next_pass_ns = now + PASS_NS;
	}
	if (d->cgs.cap)
		advise_round(d, now);
	d->cpu_ns += thread_cpu_ns() - c0;
	uint64_t next = d->next_read_ns < d->next_pass_ns ? d->next_read_ns : d->next_pass_ns;
	return next > now ? (int)((next - now + 999999) / 1000000) : 0;
}

static uint64_t read_slice_us(void)
{
	FILE *f = fopen("/proc/sys/kernel/sched_cfs_bandwidth_slice_us", "r");
	unsigned long long v = 0;

	if (f && fscanf(f, "%llu", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v ? v : SLICE_US_DEFAULT;
}

int demand_all_start(struct demand_all *d, struct session *s, const struct demand_all_opts *o)
{
	memset(d, 0, sizeof(*d));
	d->s = s;
	d->o = *o;
	d->cgs = (struct idtab)IDTAB_INIT(struct dem_ref);
	d->ncpus = s->tr.ncpus;
	int oct = 0;
	while ((1 << oct) < d->ncpus && oct < 11)
		oct++;
	d->nbuckets = DEM_PER_OCT * (oct - DEM_OCT_LO) + 1;
	if (!(d->le = calloc(d->nbuckets, sizeof(*d->le))))
		return -ENOMEM;
	for (unsigned i = 1; i < d->nbuckets; i++)
		snprintf(d->le[i], sizeof(d->le[i]), "%.6g", demand_bucket_le(i));
	snprintf(d->le[0], sizeof(d->le[0]), "0");
	d->ks_open = !kstat_src_open(&d->ks, &s->fs, KSTAT_AUTO);
	d->burst = true;
	slice_us = read_slice_us();
	d->done_ns = now_ns();
	return 0;
}

static void node_free(struct dem_cg *c)
{
	free(c->open);
	free(c->cpu_bits);
	free(c->bucket);
	free(c->win);
	free(c);
}

static bool sweep_one(void *ctx, void *entry)
{
	struct dem_ref *r = entry;

	(void)ctx;
	if (!r->c->doomed)
		return false;
	node_free(r->c);
	return true;
}

void demand_all_sweep(struct demand_all *d, uint64_t now, uint64_t grace_ns)
{
	bool any = false;

	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dem_ref *r = idtab_at(&d->cgs, i);
		if (r)
			any |= r->c->doomed = r->c->gone_ns && now - r->c->gone_ns > grace_ns;
	}
	if (!any)
		return;
	/* Cgroups are removed leaf first, so those below a removed one are doomed too; if not, they let go of it. */
	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dem_ref *r = idtab_at(&d->cgs, i);
		if (r && r->c->parent && r->c->parent->doomed)
			r->c->parent = NULL;
	}
	if (idtab_sweep(&d->cgs, sweep_one, NULL))
		for (size_t i = 0; i < d->cgs.cap; i++) {
			struct dem_ref *r = idtab_at(&d->cgs, i);
			if (r)
				r->c->doomed = false; /* out of memory: kept, tried again at the next sweep */
		}
}

void demand_all_free(struct demand_all *d)
{
	for (size_t i = 0; i < d->cgs.cap; i++) {
		struct dem_ref *r = idtab_at(&d->cgs, i);
		if (r)
			node_free(r->c);
	}
	idtab_free(&d->cgs);
	if (d->ks_open)
		kstat_src_close(&d->ks);
	free(d->le);
	free(d->buf);
	free(d->regrid);
}
