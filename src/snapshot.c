// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "snapshot.h"
#include "tracer.h"
#include "util.h"

static const char *const drop_names[CGS_DROP__COUNT] = {
	[CGS_DROP_CG_FULL] = "cgroup_map_full",
	[CGS_DROP_PREEMPT_FULL] = "preempt_map_full",
	[CGS_DROP_TASK_FULL] = "task_state_full",
	[CGS_DROP_RUNQ_NOSTART] = "runq_unpaired",
	[CGS_DROP_ONCPU_NOSTART] = "oncpu_unpaired",
	[CGS_DROP_DEPTH] = "cgroup_too_deep",
};

const char *drop_name(int i)
{
	return drop_names[i];
}

uint64_t drops_total(const uint64_t *d)
{
	uint64_t t = 0;

	for (int i = 0; i < CGS_DROP__COUNT; i++)
		t += d[i];
	return t;
}

static int cmp_cg(const void *a, const void *b)
{
	uint64_t x = ((const struct cg_sample *)a)->id, y = ((const struct cg_sample *)b)->id;

	return x < y ? -1 : x > y;
}

static int cmp_pre(const void *a, const void *b)
{
	const struct preempt_sample *x = a, *y = b;

	if (x->victim != y->victim)
		return x->victim < y->victim ? -1 : 1;
	return x->preemptor < y->preemptor ? -1 : x->preemptor > y->preemptor;
}

static struct cg_sample *cg_add(struct snapshot *s, uint64_t id)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct cg_sample *n = realloc(s->cg, cap * sizeof(*n));
		if (!n)
			return NULL;
		s->cg = n;
		s->cap = cap;
	}
	struct cg_sample *c = &s->cg[s->n++];
	memset(c, 0, sizeof(*c));
	c->id = id;
	if (s->per_cpu) {
		c->cpu_slots = calloc((size_t)s->ncpus * CGS_HIST_SLOTS, sizeof(uint64_t));
		c->cpu_oncpu_ns = calloc(s->ncpus, sizeof(uint64_t));
		if (!c->cpu_slots || !c->cpu_oncpu_ns)
			return NULL;
	}
	return c;
}

/*
 * Iterate a per-CPU hash: batched where the kernel has it (v5.6+), one
 * key at a time otherwise. Calls fn for each key with its ncpus values.
 */
static int each_percpu(int fd, size_t ksz, size_t vsz, int ncpus,
		       int (*fn)(void *ctx, const void *key, const void *vals), void *ctx)
{
	size_t stride = (vsz + 7) & ~7UL, batch = 256;
	char *keys = malloc(ksz * batch), *vals = malloc(stride * ncpus * batch);
	char in[16], out[16], *inp = NULL;
	int err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		__u32 count = batch;
		int r = bpf_map_lookup_batch(fd, inp, out, keys, vals, &count, NULL);
		if (r && errno != ENOENT) {
			if (inp || (errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP)) {
				err = -errno;
				goto out;
			}
			goto slow;
		}
		for (__u32 i = 0; i < count; i++)
			if ((err = fn(ctx, keys + i * ksz, vals + i * stride * ncpus)))
				goto out;
		if (r)
			goto out; /* ENOENT: that was the last batch */
		memcpy(in, out, sizeof(in));
		inp = in;
	}
slow:
	/* No batch ops: walk keys. */
	{
		char *k = NULL, next[64];
		while (!bpf_map_get_next_key(fd, k, next)) {
			if (!bpf_map_lookup_elem(fd, next, vals) && (err = fn(ctx, next, vals)))
				goto out;
			memcpy(keys, next, ksz);
			k = keys;
		}
	}
out:
	free(keys);
	free(vals);
	return err;
}

struct read_ctx {
	struct snapshot *s;
	uint64_t epoch;  /* the epoch just closed */
};

static int take_cg(void *vctx, const void *key, const void *vals)
{
	struct read_ctx *ctx = vctx;
	struct snapshot *s = ctx->s;
	struct cg_sample *c = cg_add(s, *(const uint64_t *)key);
	const struct cgs_cg_stats *v = vals;

	if (!c)
		return -ENOMEM;
	for (int cpu = 0; cpu < s->ncpus; cpu++, v++) {
		c->oncpu_ns += v->oncpu_ns;
		c->sw_vol += v->sw_vol;
		c->sw_invol += v->sw_invol;
		c->wakeups += v->wakeups;
		c->runq_count += v->runq_count;
		c->runq_sum_ns += v->runq_sum_ns;
		const struct cgs_max *m = &v->runq_max[ctx->epoch & 1];
		if (m->epoch == ctx->epoch && m->value > c->runq_max_ns)
			c->runq_max_ns = m->value;
		for (int i = 0; i < CGS_HIST_SLOTS; i++)
			c->runq_slots[i] += v->runq_slots[i];
		if (s->per_cpu) {
			memcpy(c->cpu_slots + (size_t)cpu * CGS_HIST_SLOTS, v->runq_slots,
			       sizeof(v->runq_slots));
			c->cpu_oncpu_ns[cpu] = v->oncpu_ns;
		}
	}
	return 0;
}

static int pre_add(struct snapshot *s, uint64_t victim, uint64_t preemptor, uint64_t count)
{
	if (s->npre == s->precap) {
		size_t cap = s->precap ? s->precap * 2 : 64;
		struct preempt_sample *n = realloc(s->pre, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->pre = n;
		s->precap = cap;
	}
	s->pre[s->npre++] = (struct preempt_sample){ victim, preemptor, count };
	return 0;
}

static int take_pre(void *vctx, const void *key, const void *vals)
{
	struct snapshot *s = vctx;
	const struct cgs_preempt_key *k = key;
	const uint64_t *v = vals;
	uint64_t sum = 0;

	for (int cpu = 0; cpu < s->ncpus; cpu++)
		sum += v[cpu];
	return pre_add(s, k->victim, k->preemptor, sum);
}

const struct cg_sample *snapshot_find(const struct snapshot *s, uint64_t id)
{
	struct cg_sample key = { .id = id };

	return s->n ? bsearch(&key, s->cg, s->n, sizeof(key), cmp_cg) : NULL;
}

int snapshot_read(struct tracer *t, struct snapshot *s, bool per_cpu, const struct snapshot *prev)
{
	struct read_ctx ctx = { .s = s };
	struct cgs_cpu_cur *cur;
	uint64_t *d;
	int err;

	memset(s, 0, sizeof(*s));
	s->ncpus = t->ncpus;
	s->per_cpu = per_cpu;
	ctx.epoch = tracer_next_epoch(t);
	err = each_percpu(t->fd_cg, sizeof(uint64_t), sizeof(struct cgs_cg_stats), t->ncpus,
			  take_cg, &ctx);
	if (!err)
		err = each_percpu(t->fd_preempt, sizeof(struct cgs_preempt_key), sizeof(uint64_t),
				  t->ncpus, take_pre, s);
	if (err)
		return err;
	qsort(s->cg, s->n, sizeof(*s->cg), cmp_cg);
	qsort(s->pre, s->npre, sizeof(*s->pre), cmp_pre);

	/* Credit the slices running right now, so a task that never switches still shows. */
	cur = calloc(t->ncpus, sizeof(*cur));
	d = calloc(t->ncpus, sizeof(*d));
	if (!cur || !d) {
		free(cur);
		free(d);
		return -ENOMEM;
	}
	__u32 zero = 0;
	if (!bpf_map_lookup_elem(t->fd_cur, &zero, cur)) {
		s->t_ns = now_ns();
		for (int cpu = 0; cpu < t->ncpus; cpu++) {
			if (!cur[cpu].cgid || !cur[cpu].since_ns || cur[cpu].since_ns > s->t_ns)
				continue;
			struct cg_sample *c = (struct cg_sample *)snapshot_find(s, cur[cpu].cgid);
			if (!c) {
				if (!(c = cg_add(s, cur[cpu].cgid)))
					break;
				qsort(s->cg, s->n, sizeof(*s->cg), cmp_cg);
				c = (struct cg_sample *)snapshot_find(s, cur[cpu].cgid);
			}
			c->oncpu_ns += s->t_ns - cur[cpu].since_ns;
			if (c->cpu_oncpu_ns)
				c->cpu_oncpu_ns[cpu] += s->t_ns - cur[cpu].since_ns;
		}
	} else {
		s->t_ns = now_ns();
	}
	for (size_t i = 0; i < s->n; i++) {
		struct cg_sample *c = &s->cg[i];
		const struct cg_sample *p = prev ? snapshot_find(prev, c->id) : NULL;
		c->runq_max_all_ns = c->runq_max_ns;
		if (p && p->runq_max_all_ns > c->runq_max_all_ns)
			c->runq_max_all_ns = p->runq_max_all_ns;
	}
	for (__u32 i = 0; i < CGS_DROP__COUNT; i++) {
		memset(d, 0, t->ncpus * sizeof(*d));
		if (!bpf_map_lookup_elem(t->fd_drops, &i, d))
			for (int cpu = 0; cpu < t->ncpus; cpu++)
				s->drops[i] += d[cpu];
	}
	free(cur);
	free(d);
	return 0;
}

void snapshot_free(struct snapshot *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->cg[i].cpu_slots);
		free(s->cg[i].cpu_oncpu_ns);
	}
	free(s->cg);
	free(s->pre);
	memset(s, 0, sizeof(*s));
}

#define SUB(f) (c->f - (p ? p->f : 0))

int snapshot_delta(const struct snapshot *prev, const struct snapshot *cur, struct snapshot *out)
{
	memset(out, 0, sizeof(*out));
	out->t_ns = cur->t_ns;
	out->ncpus = cur->ncpus;
	out->per_cpu = cur->per_cpu;
	for (size_t i = 0; i < cur->n; i++) {
		const struct cg_sample *c = &cur->cg[i];
		const struct cg_sample *p = prev ? snapshot_find(prev, c->id) : NULL;
		struct cg_sample d = { .id = c->id };

		/* Counters only grow; a smaller value means the slot was reused. */
		if (p && (p->runq_count > c->runq_count || p->wakeups > c->wakeups))
			p = NULL;
		d.oncpu_ns = c->oncpu_ns > (p ? p->oncpu_ns : 0) ? SUB(oncpu_ns) : 0;
		d.sw_vol = SUB(sw_vol);
		d.sw_invol = SUB(sw_invol);
		d.wakeups = SUB(wakeups);
		d.runq_count = SUB(runq_count);
		d.runq_sum_ns = SUB(runq_sum_ns);
		/* An interval has its own maximum; "since attach" the running one. */
		d.runq_max_ns = prev ? c->runq_max_ns : c->runq_max_all_ns;
		d.runq_max_all_ns = c->runq_max_all_ns;
		for (int k = 0; k < CGS_HIST_SLOTS; k++)
			d.runq_slots[k] = SUB(runq_slots[k]);
		if (!d.oncpu_ns && !d.sw_vol && !d.sw_invol && !d.wakeups && !d.runq_count)
			continue;
		struct cg_sample *o = cg_add(out, c->id);
		if (!o)
			return -ENOMEM;
		uint64_t *cs = o->cpu_slots, *co = o->cpu_oncpu_ns;
		*o = d;
		o->cpu_slots = cs;
		o->cpu_oncpu_ns = co;
		if (cs) {
			for (size_t k = 0; k < (size_t)cur->ncpus * CGS_HIST_SLOTS; k++)
				cs[k] = c->cpu_slots[k] - (p && p->cpu_slots ? p->cpu_slots[k] : 0);
			for (int k = 0; k < cur->ncpus; k++) {
				uint64_t pv = p && p->cpu_oncpu_ns ? p->cpu_oncpu_ns[k] : 0;
				co[k] = c->cpu_oncpu_ns[k] > pv ? c->cpu_oncpu_ns[k] - pv : 0;
			}
		}
	}
	for (size_t i = 0; i < cur->npre; i++) {
		const struct preempt_sample *c = &cur->pre[i];
		const struct preempt_sample *p = NULL;
		if (prev && prev->npre)
			p = bsearch(c, prev->pre, prev->npre, sizeof(*c), cmp_pre);
		uint64_t n = c->count - (p && p->count <= c->count ? p->count : 0);
		if (n && pre_add(out, c->victim, c->preemptor, n))
			return -ENOMEM;
	}
	for (int i = 0; i < CGS_DROP__COUNT; i++)
		out->drops[i] = cur->drops[i] - (prev ? prev->drops[i] : 0);
	return 0;
}
