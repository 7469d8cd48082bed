// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* export's demand steps of every cgroup, read from the BPF side (per_steps.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "trace/per_steps.h"
#include "lib/util.h"

/* Two slices a CPU may have claims for: one ended but not yet seen in the ring, and the one running. */
#define PER_CLAIMS 2
/* A claim's slice and a ring record are the same slice if their starts agree this closely (clock offsets drift). */
#define PER_SAME_NS 1000000ULL
/* Reads of a CPU's state that may find a switch half done before this read gives up. */
#define PER_CUR_TRIES 8

/* The loader's side of a slot: the grid its steps are on, and the first step not read. */
struct per_slot {
	uint64_t id;           /* the cgroup read for; 0: none yet */
	uint32_t gen;          /* cg_per's gen of that grid */
	uint32_t nsteps;
	uint64_t origin_ns, step_ns;
	int64_t next_k;
};

/* A running slice credited to the steps read so far: its end in the ring adds only the rest. */
struct per_claim {
	bool on;
	uint32_t slot1, gen;
	uint64_t a;            /* where its placement begins */
	uint64_t credited;     /* ns of it handed on */
	uint64_t seen;         /* the read that last saw it running */
};

/* Work to spread over a slot's steps: d ns from a on. */
struct per_ival {
	uint32_t slot, gen;
	uint64_t a, d;
};

struct per_state {
	struct cgs_per *e;     /* cg_per, mmapped */
	struct mapwin w;
	int fd_long, fd_cur;
	int ncpus;
	uint32_t max;
	struct per_slot *slot;
	struct per_claim *claim; /* PER_CLAIMS a CPU */
	uint64_t *head;        /* each CPU's long records read */
	struct cgs_per_cpu *pc;
	struct cgs_cpu_cur *cur;
	struct per_ival *iv;
	size_t niv, cap;
	uint64_t reads, long_slices, late_ns;
	uint64_t last_ns, window_ns;
	uint64_t default_step_ns;
	uint32_t *ran;         /* each CPU's and slot's on-CPU time (low 32 bits) at tracer_per_cpus: ran[cpu * max + slot] */
	uint64_t *ran_id;      /* the cgroup each slot's ran is for */
};

static uint32_t steps_for(uint64_t period_ns)
{
	uint64_t n = period_ns / 1000000ULL;

	return n >= CGS_PER_NSTEPS ? CGS_PER_NSTEPS : n ? (uint32_t)n : 1;
}

static int64_t step_at(const struct per_slot *p, uint64_t t)
{
	return t >= p->origin_ns ? (int64_t)((t - p->origin_ns) / p->step_ns) : -1;
}

/* The first step a read at now may not take: programs may still add to it. */
static int64_t safe_k(const struct per_slot *p, uint64_t now)
{
	uint64_t reach = CGS_PER_REACH * (uint64_t)p->nsteps * p->step_ns + 2 * p->step_ns;

	return now > p->origin_ns + reach ? (int64_t)((now - reach - p->origin_ns) / p->step_ns) : 0;
}

static uint64_t step_start(const struct per_slot *p, int64_t k)
{
	return p->origin_ns + (uint64_t)k * p->step_ns;
}

int tracer_per_open(struct tracer *t)
{
	struct per_state *ps = calloc(1, sizeof(*ps));
	int err = -ENOMEM;

	if (!ps)
		return -ENOMEM;
	ps->ncpus = t->ncpus;
	ps->max = t->max_cgroups;
	ps->default_step_ns = t->skel->rodata->targ_per_step_ns;
	ps->fd_long = bpf_map__fd(t->skel->maps.per_cpu);
	ps->fd_cur = t->fd_cur;
	if (!(ps->slot = calloc(ps->max, sizeof(*ps->slot))) ||
	    !(ps->claim = calloc((size_t)ps->ncpus * PER_CLAIMS, sizeof(*ps->claim))) ||
	    !(ps->head = calloc(ps->ncpus, sizeof(*ps->head))) || !(ps->pc = calloc(ps->ncpus, sizeof(*ps->pc))) ||
	    !(ps->cur = calloc(ps->ncpus, sizeof(*ps->cur))))
		goto fail;
	if ((err = mapwin_open(&ps->w, bpf_map__fd(t->skel->maps.cg_per), sizeof(struct cgs_per), 1, ps->max)) ||
	    (err = mapwin_cover(&ps->w, 1)))
		goto fail;
	ps->e = ps->w.base;
	ps->window_ns = UINT64_MAX;
	t->per = ps;
	t->sl.per = ps->e;
	t->sl.perw = &ps->w;
	return 0;
fail:
	t->per = ps;
	tracer_per_close(t);
	return err;
}

void tracer_per_close(struct tracer *t)
{
	struct per_state *ps = t->per;

	if (!ps)
		return;
	mapwin_close(&ps->w);
	free(ps->slot);
	free(ps->claim);
	free(ps->head);
	free(ps->pc);
	free(ps->cur);
	free(ps->iv);
	free(ps->ran);
	free(ps->ran_id);
	free(ps);
	t->per = NULL;
	t->sl.per = NULL;
	t->sl.perw = NULL;
}

/* Take the slot's grid from cg_per, and begin reading it at step k. */
static void slot_reset(struct per_state *ps, uint32_t s, uint64_t id, int64_t k)
{
	const struct cgs_per *e = &ps->e[s];
	struct per_slot *p = &ps->slot[s];
	uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);

	p->id = id;
	p->gen = e->gen;
	if (state == CGS_PER_ARMED) {
		p->origin_ns = e->origin_ns;
		p->step_ns = e->step_ns;
		p->nsteps = e->nsteps;
	} else {
		p->origin_ns = 0;
		p->step_ns = ps->default_step_ns;
		p->nsteps = CGS_PER_NSTEPS;
	}
	p->next_k = k;
}

/*
 * A slot seen holding a cgroup for the first time. Its steps were zeroed
 * before it was given out, so all the ring holds is this cgroup's.
 */
static void slot_learn(struct per_state *ps, uint32_t s, uint64_t id, uint64_t now)
{
	struct per_slot *p = &ps->slot[s];

	slot_reset(ps, s, id, 0);
	int64_t k = safe_k(p, now) - (CGS_PER_RING - CGS_PER_REACH * (int64_t)p->nsteps - 4);
	p->next_k = k > 0 ? k : 0;
}

static int ival_add(struct per_state *ps, uint32_t s, uint32_t gen, uint64_t a, uint64_t d)
{
	if (!d)
		return 0;
	if (ARRAY_GROW(ps->iv, ps->niv, ps->cap, 16))
		return -ENOMEM;
	ps->iv[ps->niv++] = (struct per_ival){ s, gen, a, d };
	return 0;
}

int tracer_per_grid(struct tracer *t, uint64_t id, const struct per_grid *g)
{
	struct per_state *ps = t->per;
	uint32_t s;
	int ret = 0;

	if (!ps || !g->period_ns)
		return -EINVAL;
	pthread_mutex_lock(&t->read_lock);
	if (bpf_map_lookup_elem(t->sl.fd_slot, &id, &s) || s >= ps->max || t->sl.owner[s] != id)
		goto out;
	uint32_t n = steps_for(g->period_ns);
	uint64_t step = g->period_ns / n, origin = g->origin_ns % g->period_ns;
	struct per_slot *p = &ps->slot[s];
	if (p->id == id && p->step_ns == step && p->nsteps == n && p->origin_ns % g->period_ns == origin)
		goto out;
	struct cgs_per *e = &ps->e[s];
	/* No program adds to the steps while they change, nor with the old grid after. */
	__atomic_store_n(&e->state, CGS_PER_PAUSED, __ATOMIC_RELEASE);
	slots_wait_programs(&t->sl);
	memset(e->ns, 0, sizeof(e->ns));
	e->origin_ns = origin;
	e->step_ns = step;
	e->nsteps = n;
	e->gen++;
	__atomic_store_n(&e->state, CGS_PER_ARMED, __ATOMIC_RELEASE);
	slot_reset(ps, s, id, 0);
	int64_t k = step_at(p, now_ns());
	p->next_k = k > 0 ? k : 0;
	ret = 1;
out:
	pthread_mutex_unlock(&t->read_lock);
	return ret;
}

/* Every CPU's state with no switch half done, into ps->cur. */
static int read_cur(struct per_state *ps)
{
	uint32_t zero = 0;

	for (int i = 0; i < PER_CUR_TRIES; i++) {
		bool odd = false;
		if (bpf_map_lookup_elem(ps->fd_cur, &zero, ps->cur))
			return -errno;
		for (int c = 0; c < ps->ncpus && !odd; c++)
			odd = ps->cur[c].seq & 1;
		if (!odd)
			return 0;
	}
	return -EAGAIN;
}

static struct per_claim *claim_find(struct per_state *ps, int cpu, uint32_t slot1, uint32_t gen, uint64_t a)
{
	struct per_claim *c = &ps->claim[(size_t)cpu * PER_CLAIMS];

	for (int i = 0; i < PER_CLAIMS; i++)
		if (c[i].on && c[i].slot1 == slot1 && c[i].gen == gen &&
		    (c[i].a > a ? c[i].a - a : a - c[i].a) <= PER_SAME_NS)
			return &c[i];
	return NULL;
}

/*
 * Credit each running slice whose placement reaches into the steps this
 * read takes: the part up to where they end. Its end adds only the rest.
 */
static int claim_running(struct per_state *ps, const struct slot_table *sl, uint64_t now)
{
	for (int c = 0; c < ps->ncpus; c++) {
		const struct cgs_cpu_cur *cur = &ps->cur[c];
		if (!cur->cgid || !cur->slot1 || cur->slot1 > ps->max || !cur->since_ns ||
		    cur->slot_gen != __atomic_load_n(sl->gen, __ATOMIC_ACQUIRE))
			continue;
		uint32_t s = cur->slot1 - 1;
		const struct per_slot *p = &ps->slot[s];
		if (!p->id)
			continue;
		uint64_t since = cur->seeded ? cur->since_ns : cur->since_ns + cur->clock_off;
		uint64_t a = since - cur->dem_lag, T = step_start(p, safe_k(p, now));
		if (a >= T || now <= since)
			continue;
		struct per_claim *k = claim_find(ps, c, cur->slot1, p->gen, a);
		if (!k) {
			struct per_claim *slots = &ps->claim[(size_t)c * PER_CLAIMS];
			k = !slots[0].on ? &slots[0] : !slots[1].on ? &slots[1] : slots[0].seen < slots[1].seen ? &slots[0] : &slots[1];
			if (k->on)
				__atomic_add_fetch(&ps->late_ns, k->credited, __ATOMIC_RELAXED); /* its end never came */
			*k = (struct per_claim){ .on = true, .slot1 = cur->slot1, .gen = p->gen, .a = a };
		}
		uint64_t credit = now - since < T - a ? now - since : T - a;
		if (credit > k->credited && ival_add(ps, s, p->gen, k->a + k->credited, credit - k->credited))
			return -ENOMEM;
		if (credit > k->credited)
			k->credited = credit;
		k->seen = ps->reads;
	}
	return 0;
}

/* The slices the programs passed over whole since the last read, as work to spread. */
static int take_long(struct per_state *ps, bool *lost)
{
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(ps->fd_long, &zero, ps->pc))
		return -errno;
	for (int c = 0; c < ps->ncpus; c++) {
		const struct cgs_per_cpu *pc = &ps->pc[c];
		uint64_t from = ps->head[c];
		if (pc->head - from > CGS_PER_LONG) {
			*lost = true;
			from = pc->head - CGS_PER_LONG;
		}
		for (uint64_t i = from; i < pc->head; i++) {
			const struct cgs_per_long *r = &pc->rec[i & (CGS_PER_LONG - 1)];
			if (!r->slot1 || r->slot1 > ps->max || r->gen != ps->slot[r->slot1 - 1].gen)
				continue;
			struct per_claim *k = claim_find(ps, c, r->slot1, r->gen, r->a);
			uint64_t a = r->a, d = r->d;
			if (k) {
				a = k->a + k->credited;
				d = d > k->credited ? d - k->credited : 0;
				k->on = false;
			}
			ps->long_slices++;
			if (ival_add(ps, r->slot1 - 1, r->gen, a, d))
				return -ENOMEM;
		}
		ps->head[c] = pc->head;
		/* A claim whose slice ended long ago without a record (its slot recycled): let go. */
		for (int i = 0; i < PER_CLAIMS; i++) {
			struct per_claim *k = &ps->claim[(size_t)c * PER_CLAIMS + i];
			if (k->on && ps->reads - k->seen > 2)
				k->on = false;
		}
	}
	return 0;
}

static int cmp_ival(const void *a, const void *b)
{
	const struct per_ival *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot ? 1 : x->a < y->a ? -1 : x->a > y->a;
}

/*
 * Steps [p->next_k, end) of slot s into vals, with the work to spread
 * that falls in them. Work before them came late and is counted; work
 * after them waits for a later read. Returns the intervals left.
 */
static size_t spread(struct per_state *ps, uint32_t s, int64_t end, uint64_t *vals, size_t iv, size_t *keep)
{
	const struct per_slot *p = &ps->slot[s];
	uint64_t lo = step_start(p, p->next_k), hi = step_start(p, end);

	for (; iv < ps->niv && ps->iv[iv].slot == s; iv++) {
		struct per_ival v = ps->iv[iv];
		if (v.gen != p->gen)
			continue;
		if (v.a < lo) {
			uint64_t early = lo - v.a < v.d ? lo - v.a : v.d;
			__atomic_add_fetch(&ps->late_ns, early, __ATOMIC_RELAXED);
			v.a += early;
			v.d -= early;
		}
		while (v.d && v.a < hi) {
			int64_t k = step_at(p, v.a);
			uint64_t e = step_start(p, k + 1), part = e - v.a < v.d ? e - v.a : v.d;
			vals[k - p->next_k] += part;
			v.a += part;
			v.d -= part;
		}
		if (v.d)
			ps->iv[(*keep)++] = v;
	}
	return iv;
}

int tracer_per_read(struct tracer *t, uint64_t now, const struct per_sink *sink, uint64_t *done_ns)
{
	struct per_state *ps = t->per;
	uint64_t vals[CGS_PER_RING], done = now, window = UINT64_MAX;
	bool lost = false;
	int err;

	if (!ps)
		return -EINVAL;
	pthread_mutex_lock(&t->read_lock);
	ps->reads++;
	const struct slot_table *sl = &t->sl;
	for (uint32_t s = 0; s < sl->nslots; s++) {
		if (sl->owner[s] && sl->owner[s] != ps->slot[s].id)
			slot_learn(ps, s, sl->owner[s], now);
		else if (!sl->owner[s])
			ps->slot[s].id = 0;
	}
	if ((err = read_cur(ps))) {
		/* A CPU stayed in a switch: nothing is taken this time, the next read takes it. */
		*done_ns = ps->last_ns;
		err = err == -EAGAIN ? 0 : err;
		goto out;
	}
	if ((err = claim_running(ps, sl, now)) || (err = take_long(ps, &lost)))
		goto out;
	qsort(ps->iv, ps->niv, sizeof(*ps->iv), cmp_ival);
	size_t iv = 0, keep = 0;
	for (uint32_t s = 0; s < sl->nslots; s++) {
		struct per_slot *p = &ps->slot[s];
		while (iv < ps->niv && ps->iv[iv].slot < s)
			iv++; /* a slot no cgroup holds now */
		if (!p->id)
			continue;
		int64_t end = safe_k(p, now);
		uint64_t w = (CGS_PER_RING - CGS_PER_REACH * (uint64_t)p->nsteps - 4) * p->step_ns;
		window = w < window ? w : window;
		if (end <= p->next_k) {
			iv = spread(ps, s, p->next_k, vals, iv, &keep);
			continue;
		}
		/* A program may have added step k + CGS_PER_RING into step k's place: those steps are lost. */
		int64_t over = step_at(p, now) - CGS_PER_RING + 1;
		if (lost || over > p->next_k) {
			int64_t to = lost ? end : over < end ? over : end;
			if (sink->lost)
				sink->lost(sink->ctx, p->id, step_start(p, p->next_k), step_start(p, to));
			for (int64_t k = p->next_k; k < to; k++)
				__atomic_store_n(&ps->e[s].ns[k & (CGS_PER_RING - 1)], 0, __ATOMIC_RELAXED);
			__atomic_add_fetch(&t->sl.per_lost, 1, __ATOMIC_RELAXED);
			p->next_k = to;
		}
		if (end - p->next_k > CGS_PER_RING)
			end = p->next_k + CGS_PER_RING;
		memset(vals, 0, sizeof(vals));
		for (int64_t k = p->next_k; k < end; k++)
			vals[k - p->next_k] = __atomic_exchange_n(&ps->e[s].ns[k & (CGS_PER_RING - 1)], 0, __ATOMIC_RELAXED);
		iv = spread(ps, s, end, vals, iv, &keep);
		for (int64_t k = p->next_k; k < end; k++)
			if (vals[k - p->next_k] && sink->step)
				sink->step(sink->ctx, p->id, step_start(p, k), p->step_ns, vals[k - p->next_k]);
		p->next_k = end;
		uint64_t at = step_start(p, end);
		done = at < done ? at : done;
	}
	ps->niv = keep;
	ps->last_ns = now;
	ps->window_ns = window;
	*done_ns = done;
out:
	pthread_mutex_unlock(&t->read_lock);
	return err;
}

uint64_t tracer_per_due(const struct tracer *t, uint64_t now)
{
	const struct per_state *ps = t->per;

	if (!ps || !ps->last_ns)
		return now;
	/* Half the shortest window: a read may come that late again before a step is lost. */
	uint64_t w = ps->window_ns == UINT64_MAX ? 60 * ps->default_step_ns : ps->window_ns;
	return ps->last_ns + w / 2;
}

void tracer_per_stats(const struct tracer *t, uint64_t *long_slices, uint64_t *late_ns)
{
	const struct per_state *ps = t->per;

	*long_slices = ps ? ps->long_slices : 0;
	*late_ns = ps ? __atomic_load_n(&ps->late_ns, __ATOMIC_RELAXED) : 0;
}

int tracer_per_cpus(struct tracer *t, void (*cb)(void *ctx, uint64_t id, int cpu), void *ctx)
{
	struct per_state *ps = t->per;

	if (!ps)
		return -EINVAL;
	pthread_mutex_lock(&t->read_lock);
	if (!ps->ran && (!(ps->ran = calloc((size_t)ps->ncpus * ps->max, sizeof(*ps->ran))) ||
			 !(ps->ran_id = calloc(ps->max, sizeof(*ps->ran_id))))) {
		free(ps->ran);
		ps->ran = NULL;
		pthread_mutex_unlock(&t->read_lock);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < t->sl.nslots; s++) {
		uint64_t id = t->sl.owner[s];
		bool fresh = id != ps->ran_id[s];
		ps->ran_id[s] = id;
		for (int c = 0; id && c < ps->ncpus; c++) {
			uint32_t v = (uint32_t)__atomic_load_n(&t->hot[(size_t)c * ps->max + s].oncpu_ns, __ATOMIC_RELAXED);
			uint32_t *was = &ps->ran[(size_t)c * ps->max + s];
			if (v != *was && !fresh)
				cb(ctx, id, c);
			*was = v;
		}
	}
	pthread_mutex_unlock(&t->read_lock);
	return 0;
}
