// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "trace/maputil.h"
#include "figures/snapshot.h"
#include "lib/msort.h"
#include "trace/tracer.h"
#include "lib/util.h"

static const char *const drop_names[CGS_DROP__COUNT] = {
	[CGS_DROP_CG_FULL] = "cgroup_map_full",
	[CGS_DROP_PREEMPT_FULL] = "preempt_map_full",
	[CGS_DROP_TASK_FULL] = "task_state_full",
	[CGS_DROP_RUNQ_NOSTART] = "runq_unpaired",
	[CGS_DROP_ONCPU_NOSTART] = "oncpu_unpaired",
	[CGS_DROP_DEPTH] = "cgroup_too_deep",
	[CGS_DROP_THR_FULL] = "throttle_map_full",
	[CGS_DROP_THR_UNPAIRED] = "throttle_unpaired",
	[CGS_DROP_THR_OPEN_FULL] = "throttle_open_full",
	[CGS_DROP_THR_STALE] = "throttle_stale",
	[CGS_DROP_EPISODE_LOST] = "episode_lost",
	[CGS_DROP_TASKS_FULL] = "tasks_full",
	[CGS_DROP_WAIT_LOST] = "wait_lost",
	[CGS_DROP_GONE_LOST] = "gone_lost",
	[CGS_DROP_PARKED_LOST] = "parked_lost",
	[CGS_DROP_SLOT_LOST] = "slot_lost",
	[CGS_DROP_THR_LAST_FULL] = "throttle_last_full",
	[CGS_DROP_THR_END_MISSED] = "throttle_end_missed",
	[CGS_DROP_PROG_MISSED] = "hook_runs_missed",
	[CGS_DROP_MOVE_UNTIMED] = "move_untimed",
	[CGS_DROP_PER_PAUSED] = "per_paused",
	[CGS_DROP_PER_LOST] = "per_lost",
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

uint64_t drops_notable(const uint64_t *d, uint64_t events, uint64_t *out)
{
	uint64_t t = 0;

	for (int i = 0; i < CGS_DROP__COUNT; i++) {
		bool unpaired = i == CGS_DROP_RUNQ_NOSTART || i == CGS_DROP_ONCPU_NOSTART ||
				i == CGS_DROP_THR_UNPAIRED || i == CGS_DROP_THR_STALE;
		/*
		 * A few unpaired events are in the nature of tracing: a task
		 * waiting when the programs attached, a CPU's first switch. Only
		 * more than 10, and more than 1 % of the interval's events, say
		 * that something is amiss.
		 */
		out[i] = !unpaired || (d[i] > 10 && d[i] * 100 > events) ? d[i] : 0;
		t += out[i];
	}
	return t;
}

const uint64_t *sample_slots(const struct cg_sample *s, enum metric m)
{
	switch (m) {
	case METRIC_ONCPU: return s->c.oncpu_slots;
	case METRIC_THROTTLE: return s->c.thr_slots;
	default: return s->c.runq_slots;
	}
}

static int cmp_pre(const void *a, const void *b)
{
	const struct preempt_sample *x = a, *y = b;

	if (x->victim != y->victim)
		return x->victim < y->victim ? -1 : 1;
	return x->preemptor < y->preemptor ? -1 : x->preemptor > y->preemptor;
}

static inline bool pre_before(const struct preempt_sample *x, const struct preempt_sample *y)
{
	return cmp_pre(x, y) < 0;
}

MSORT_DEFINE(sort_pre_in, struct preempt_sample, pre_before)

/* Sort s->pre by (victim, preemptor), using the spare room past npre as scratch (kept for the next read). */
static int sort_pre(struct snapshot *s)
{
	if (s->npre < 2)
		return 0;
	if (ROOM_FOR(s->pre, 2 * s->npre, s->precap))
		return -ENOMEM;
	sort_pre_in(s->pre, s->pre + s->npre, s->npre);
	return 0;
}

static struct cg_sample *cg_init(struct snapshot *s, struct cg_sample *c, uint64_t id)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	if (s->per_cpu && !(c->cpu = calloc(s->ncpus, sizeof(*c->cpu))))
		return NULL;
	return c;
}

static struct cg_sample *cg_add(struct snapshot *s, uint64_t id)
{
	if (ARRAY_GROW(s->cg, s->n, s->cap, 64))
		return NULL;
	return cg_init(s, &s->cg[s->n++], id);
}

/* Find the sample of id, or append one and sort again (rare: a cgroup seen by one map only). */
static struct cg_sample *cg_get(struct snapshot *s, uint64_t id)
{
	struct cg_sample *c = (struct cg_sample *)snapshot_find(s, id);

	if (c)
		return c;
	if (!cg_add(s, id))
		return NULL;
	qsort(s->cg, s->n, sizeof(*s->cg), cg_sample_cmp);
	return (struct cg_sample *)snapshot_find(s, id);
}

static int pre_add(struct snapshot *s, uint64_t victim, uint64_t preemptor, uint64_t count, uint64_t behind_ns)
{
	if (ARRAY_GROW(s->pre, s->npre, s->precap, 64))
		return -ENOMEM;
	s->pre[s->npre++] = (struct preempt_sample){ victim, preemptor, count, behind_ns };
	return 0;
}

struct read_ctx {
	struct snapshot *s;
	uint64_t epoch;  /* the epoch just closed */
};

static uint64_t max_of(const struct cgs_max *m, uint64_t epoch)
{
	return m[epoch & 1].epoch == epoch ? m[epoch & 1].value : 0;
}

#define ADD_SLOTS(dst, src)                              \
	for (int i_ = 0; i_ < CGS_HIST_SLOTS; i_++)      \
		(dst)[i_] += (src)[i_]

/* Add CPU cpu's hot figures of a cgroup (cpu -1: a record folded over CPUs). */
static void add_hot(struct read_ctx *ctx, struct cg_sample *c, const struct cgs_cg_hot *v, int cpu)
{
#define SUM(field) c->c.field += v->field;
	CGS_CG_HOT_COUNTERS(SUM)
	uint64_t m = cgs_pmax_of(v->runq_max, ctx->epoch);
	if (m > c->runq_max_ns)
		c->runq_max_ns = m;
	if (c->cpu && cpu >= 0)
		c->cpu[cpu].oncpu_ns += v->oncpu_ns;
}

/*
 * Add a shard of a cgroup's figures. With the per-CPU view there is one
 * shard per CPU, shard k being CPU k's (attach.c shards_for), and cpu is
 * k. Otherwise cpu is -1, since a shard of several CPUs is no CPU's.
 */
static void add_shard(struct read_ctx *ctx, struct cg_sample *c, const struct cgs_cg_shard *v, int cpu)
{
	CGS_CG_SHARD_COUNTERS(SUM)
#undef SUM
	if (v->thr_inh_by)
		c->thr_inh_by = v->thr_inh_by;
	ADD_SLOTS(c->c.runq_slots, v->runq_slots);
	if (!ctx->s->no_oncpu_slots)
		ADD_SLOTS(c->c.oncpu_slots, v->oncpu_slots);
	if (c->cpu && cpu >= 0) {
		ADD_SLOTS(c->cpu[cpu].slots[METRIC_RUNQ], v->runq_slots);
		ADD_SLOTS(c->cpu[cpu].slots[METRIC_ONCPU], v->oncpu_slots);
	}
}

/* One slot's figures, every CPU's and every shard's, read in place from the mmapped maps. */
static int take_cg(struct read_ctx *ctx, const struct tracer_view *t, uint32_t slot)
{
	struct snapshot *s = ctx->s;

	/* Write each sample at its rank, in id order, so no sort of large samples is needed. */
	struct cg_sample *c = cg_init(s, &s->cg[t->rank[slot]], t->owner[slot]);
	if (!c)
		return -ENOMEM;
	for (int cpu = 0; cpu < t->ncpus; cpu++)
		add_hot(ctx, c, &t->hot[(size_t)cpu * t->max_cgroups + slot], cpu);
	for (int k = 0; k < t->nshards; k++)
		add_shard(ctx, c, &t->shard[(size_t)k * t->max_cgroups + slot], t->nshards == t->ncpus ? k : -1);
	return 0;
}

/*
 * Add the figures of cgroups whose slots were taken back (slots.h). They
 * go to the cgroup's sample if it has a slot again, else into a sample of
 * their own. One sort follows, if any sample was appended.
 */
static int take_parked(struct read_ctx *ctx, const struct tracer_view *t)
{
	struct snapshot *s = ctx->s;
	size_t sorted = s->n;

	for (size_t i = 0; i < t->nparked; i++) {
		const struct parked *p = &t->parked[i];
		struct cg_sample key = { .id = p->id }, *c = NULL;

		if (sorted)
			c = bsearch(&key, s->cg, sorted, sizeof(key), cg_sample_cmp);
		if (!c && !(c = cg_add(s, p->id)))
			return -ENOMEM;
		/* One record, or one per CPU (slots.h); only in the second case is a record a CPU's. */
		for (int u = 0; u < p->nv; u++) {
			add_hot(ctx, c, &p->v[u].h, p->nv == t->ncpus ? u : -1);
			add_shard(ctx, c, &p->v[u].sh, p->nv == t->ncpus ? u : -1);
		}
	}
	if (s->n > sorted)
		qsort(s->cg, s->n, sizeof(*s->cg), cg_sample_cmp);
	return 0;
}

static int take_thr(void *vctx, const void *key, const void *val)
{
	struct read_ctx *ctx = vctx;
	const struct cgs_thr_key *k = key;
	const struct cgs_thr_stats *v = val;
	struct cg_sample *c = cg_get(ctx->s, k->cgid);

	if (!c)
		return -ENOMEM;
	c->c.thr_count += v->count;
	c->c.thr_ns += v->ns;
	ADD_SLOTS(c->c.thr_slots, v->slots);
	uint64_t m = max_of(v->max, ctx->epoch);
	if (m > c->thr_max_ns)
		c->thr_max_ns = m;
	if (k->cpu >= (uint32_t)ctx->s->ncpus)
		return 0;
	if (!c->thr_cpu && !(c->thr_cpu = calloc(ctx->s->ncpus, sizeof(*c->thr_cpu))))
		return -ENOMEM;
	ctx->s->arrays = true;
	c->thr_cpu[k->cpu].count += v->count;
	c->thr_cpu[k->cpu].ns += v->ns;
	if (c->cpu) {
		c->cpu[k->cpu].thr_count += v->count;
		c->cpu[k->cpu].thr_ns += v->ns;
		ADD_SLOTS(c->cpu[k->cpu].slots[METRIC_THROTTLE], v->slots);
	}
	return 0;
}

static int take_pre(void *vctx, const void *key, const void *vals)
{
	struct snapshot *s = vctx;
	const struct cgs_preempt_key *k = key;
	const struct cgs_preempt_val *v = vals; /* one for all CPUs (sched.bpf.c preempt) */

	return pre_add(s, k->victim, k->preemptor, v->count, v->behind_ns);
}

/*
 * Credit the slices running right now (cur: cpu_cur as read_consistent
 * read it, with s->t_ns), so a task that never switches still shows.
 */
static void take_running(const struct tracer_view *t, struct snapshot *s, const struct cgs_cpu_cur *cur,
			 uint64_t *credited)
{
	for (int cpu = 0; cpu < t->ncpus; cpu++) {
		/* since_ns is the CPU's rq clock (ktime, clock_off 0, until its first switch after seed_cpu). */
		uint64_t since = cur[cpu].since_ns + cur[cpu].clock_off;

		if (!cur[cpu].cgid || !cur[cpu].since_ns || since > s->t_ns) {
			if (cur[cpu].cgid && cur[cpu].since_ns)
				cgs_debug("cpu %d: running slice of cgroup %llu starts %lld ns after the read: not credited (seeded %u, off %llu)",
					  cpu, (unsigned long long)cur[cpu].cgid, (long long)(since - s->t_ns), cur[cpu].seeded,
					  (unsigned long long)cur[cpu].clock_off);
			continue;
		}
		/*
		 * Only cgroups with a map slot: one without (the map was full,
		 * and that is counted) would show a partial row.
		 */
		struct cg_sample *c = (struct cg_sample *)snapshot_find(s, cur[cpu].cgid);
		if (!c)
			continue;
		/* Less the steal seed_cpu saw in it (the task clock, as the BPF side's slices). */
		uint64_t ran = s->t_ns - since, stolen = cur[cpu].stolen_seen > cur[cpu].stolen ?
						       cur[cpu].stolen_seen - cur[cpu].stolen : 0;
		ran = stolen < ran ? ran - stolen : 0;
		/*
		 * Credit no more than the task's own count of the slice, where
		 * this read asked the CPU for it (seed_cpu). The clock less the
		 * steal seen earlier can overshoot: it misses the steal since, and
		 * time that no switch showed. A credit above the slice's final
		 * figure would stay in the rows for good. The bounded credit is
		 * short by at most a tick, and the next read has the rest.
		 */
		if (cur[cpu].ran_round && cur[cpu].ran_round == t->sync_round && cur[cpu].ran_since == cur[cpu].since_ns &&
		    ran > cur[cpu].ran_seen) {
			cgs_debug("cpu %d: running slice of cgroup %llu: credit %.3f ms bounded by the task's own %.3f ms",
				  cpu, (unsigned long long)cur[cpu].cgid, ran / 1e6, cur[cpu].ran_seen / 1e6);
			ran = cur[cpu].ran_seen;
		}
		c->c.oncpu_ns += ran;
		credited[cpu] = ran;
		cgs_debug("cpu %d: running slice of cgroup %llu: %.3f ms credited, %.3f ms stolen left out (seq %u, seeded %u, offset %lld from %.1f ms before the read)",
			  cpu, (unsigned long long)cur[cpu].cgid, ran / 1e6, stolen / 1e6, cur[cpu].seq, cur[cpu].seeded,
			  (long long)cur[cpu].clock_off, (double)(int64_t)(s->t_ns - cur[cpu].off_at - cur[cpu].clock_off) / 1e6);
		if (c->cpu)
			c->cpu[cpu].oncpu_ns += ran;
	}
	/*
	 * --why: count a still-open stretch with tasks waiting up to now, as
	 * the running slices are. why.bpf.h counts a stretch only when the
	 * count falls to 0, so a cgroup that always has a task waiting would
	 * otherwise show none. The start is on some CPU's clock; use CPU 0's
	 * offset, since two CPUs' clocks differ by far less than a refresh.
	 */
	for (uint32_t slot = 0; t->why && slot < t->nslots; slot++) {
		const struct cgs_cg_shard *g = &t->shard[slot]; /* shard 0's entry holds the count */
		uint64_t since = g->wait_since + cur[0].clock_off;
		struct cg_sample *c;

		if (g->wait_n <= 0 || !g->wait_since || since > s->t_ns || !t->owner[slot] ||
		    !(c = (struct cg_sample *)snapshot_find(s, t->owner[slot])))
			continue;
		c->c.some_ns += s->t_ns - since;
	}
}

static int take_drops(const struct tracer_view *t, struct snapshot *s)
{
	uint64_t *d = calloc(t->ncpus, sizeof(*d));

	if (!d)
		return -ENOMEM;
	for (__u32 i = 0; i < CGS_DROP__COUNT; i++) {
		memset(d, 0, t->ncpus * sizeof(*d));
		if (!bpf_map_lookup_elem(t->fd_drops, &i, d))
			for (int cpu = 0; cpu < t->ncpus; cpu++)
				s->drops[i] += d[cpu];
	}
	s->drops[CGS_DROP_PARKED_LOST] += t->parked_lost; /* counted by the loader (slots.c) */
	s->drops[CGS_DROP_PER_LOST] += t->per_lost;       /* counted by the loader (per_steps.c) */
	s->drops[CGS_DROP_PROG_MISSED] += t->prog_missed; /* counted by the kernel (tracer.c) */
	free(d);
	return 0;
}

/* The sample of id in p, walking forward from *j (both sides sorted by id). */
static const struct cg_sample *walk_to(const struct snapshot *p, size_t *j, uint64_t id)
{
	if (!p)
		return NULL;
	while (*j < p->n && p->cg[*j].id < id)
		(*j)++;
	return *j < p->n && p->cg[*j].id == id ? &p->cg[*j] : NULL;
}

/* Read cg_hot and cg_shard into s->cg, each owned slot at its rank, so s->cg is sorted by id. */
static int read_cg(const struct tracer_view *t, struct snapshot *s, struct read_ctx *ctx)
{
	uint32_t slot;
	int err = 0;

	for (slot = 0; slot < t->nslots; slot++) {
		/*
		 * Slots are read in their order, but samples are written at their
		 * ranks, all over the array. So prefetch, for writing, the sample
		 * of a slot a few slots ahead; otherwise each line written misses
		 * the cache.
		 */
		uint32_t ahead = slot + PREFETCH_AHEAD;
		if (ahead < t->nslots && t->owner[ahead])
			prefetch_lines(&s->cg[t->rank[ahead]], sizeof(struct cg_sample), true);
		/* Owner 0: claimed and given up in a race, or not yet named. */
		if (t->owner[slot] && (err = take_cg(ctx, t, slot)))
			goto fail;
	}
	return 0;
fail:
	/* Out of memory: free what the slots before it allocated. */
	for (uint32_t k = 0; k < slot; k++)
		if (t->owner[k])
			free(s->cg[t->rank[k]].cpu);
	s->n = 0;
	return err;
}

/* Let go of what read_cg took, to read it again. */
static void drop_cg(const struct tracer_view *t, struct snapshot *s)
{
	for (uint32_t slot = 0; slot < t->nslots; slot++)
		if (t->owner[slot])
			free(s->cg[t->rank[slot]].cpu);
}

/*
 * Read cg_hot and cpu_cur as of one moment. A switch on some CPU between
 * reading its figures and reading what it runs would lose the slice it
 * ended: not yet in the figures read, and no longer running. Or it would
 * count the slice twice. So cpu_cur is read before and after the figures.
 * Everything is read again if a CPU's switch count (cgs_cpu_cur.seq)
 * moved or was odd, and that CPU ran a traced cgroup's slice that was over
 * a millisecond old. An idle CPU waking up does not count: its slice is
 * no cgroup's. A slice younger than a millisecond is not worth another
 * pass, since under a switch storm every pass would see a switch: a read
 * can miscount at most that slice. At most four passes are made. A CPU
 * still switching in the last one has its running slice left out of this
 * read (since_ns 0 in cur). Its program may have added the slice to the
 * figures already, so crediting it as running could count it twice. A
 * writer stays in the middle only while its CPU is taken away: a vCPU
 * descheduled by the host, or the other vCPU of a guest under TCG. The
 * next read has the slice. cur gets cpu_cur, zeroed if unread.
 */
static int read_consistent(const struct tracer_view *t, struct snapshot *s, struct read_ctx *ctx,
			   struct cgs_cpu_cur *cur)
{
	struct cgs_cpu_cur *before = calloc(t->ncpus, sizeof(*before));
	__u32 zero = 0;
	int err = 0;

	if (!before) {
		s->n = 0; /* none read: none to free */
		return -ENOMEM;
	}
	for (int try = 0;; try++) {
		bool have = !bpf_map_lookup_elem(t->fd_cur, &zero, before), moved = false;
		uint64_t t_before = now_ns();
		if ((err = read_cg(t, s, ctx)))
			break;
		have = have && !bpf_map_lookup_elem(t->fd_cur, &zero, cur);
		s->t_ns = now_ns();
		if (!have) {
			memset(cur, 0, t->ncpus * sizeof(*cur));
			break;
		}
		for (int cpu = 0; cpu < t->ncpus; cpu++) {
			uint64_t since = before[cpu].since_ns + before[cpu].clock_off;
			/* An idle CPU's slice (or an untraced task's) is no cgroup's: a switch loses none of it. */
			bool old = before[cpu].cgid && before[cpu].since_ns && since + 1000000 < t_before;
			if (!old || (before[cpu].seq == cur[cpu].seq && !(cur[cpu].seq & 1)))
				continue;
			cgs_debug("cpu %d: switched during read %d (seq %u to %u, cgroup %llu to %llu): %s", cpu, try,
				  before[cpu].seq, cur[cpu].seq, (unsigned long long)before[cpu].cgid,
				  (unsigned long long)cur[cpu].cgid,
				  try < 3 ? "read again" : "its running slice is left to the next read");
			if (try == 3)
				cur[cpu].since_ns = 0;
			moved = true;
		}
		if (!moved || try == 3)
			break;
		drop_cg(t, s);
	}
	free(before);
	return err;
}

/* Each CPU's slice at the read, for a caller that asked (snapshot.want_running). */
static int keep_running(const struct tracer_view *t, struct snapshot *s, const struct cgs_cpu_cur *cur,
			const uint64_t *ran)
{
	if (!s->running && !(s->running = calloc(t->ncpus, sizeof(*s->running))))
		return -ENOMEM;
	for (int cpu = 0; cpu < t->ncpus; cpu++) {
		uint64_t since = cur[cpu].since_ns + cur[cpu].clock_off;
		s->running[cpu] = (struct cpu_slice){ .since_ns = cur[cpu].since_ns && since <= s->t_ns ? since : 0,
						      .credit_ns = ran[cpu] };
	}
	return 0;
}

/* The per-cgroup arrays and the running slices, with the parked figures and tasks unless light. */
static int read_now(const struct tracer_view *t, struct snapshot *s, struct read_ctx *ctx, bool per_cpu,
		    const struct snapshot *prev, bool light)
{
	struct cgs_cpu_cur *cur = calloc(t->ncpus, sizeof(*cur));
	uint64_t *ran = calloc(t->ncpus, sizeof(*ran));
	int err = 0;

	if (!cur || !ran) {
		err = -ENOMEM;
		goto out;
	}
	s->ncpus = t->ncpus;
	s->per_cpu = per_cpu;
	s->slots_used = t->nowned;
	s->slots_recycled = t->recycled;
	ctx->epoch = t->epoch;
	/* One allocation for every slot in use, or the last read's if as large (enforce reads every cgroup). */
	if (t->nowned + t->nparked && ROOM_FOR(s->cg, t->nowned + t->nparked + 64, s->cap)) {
		err = -ENOMEM;
		goto out;
	}
	s->n = t->nowned;
	err = read_consistent(t, s, ctx, cur);
	if (!err && !light)
		err = take_parked(ctx, t);
	if (!err)
		take_running(t, s, cur, ran);
	if (!err && s->want_running)
		err = keep_running(t, s, cur, ran);
	/* The tasks' running slices, as their cgroups' just now. */
	if (!err && !light && t->fd_tasks >= 0)
		err = tasks_read(t, s, prev, cur, ran);
out:
	free(cur);
	free(ran);
	return err;
}

/*
 * Everything a read takes from one view of the maps. With light, read only the per-cgroup arrays and the running slices, as
 * record's demand needs every tenth of a period. Parked figures, tasks,
 * the throttle and preemption maps and the drops are skipped, with all
 * their syscalls.
 */
static int read_view(const struct tracer_view *t, struct snapshot *s, bool per_cpu, const struct snapshot *prev,
		     bool light)
{
	struct read_ctx ctx = { .s = s };
	int err;

	if ((err = read_now(t, s, &ctx, per_cpu, prev, light)) || light)
		return err;
	if ((err = each_elem(t->fd_thr, sizeof(struct cgs_thr_key), sizeof(struct cgs_thr_stats), 0,
			     take_thr, &ctx)) ||
	    (err = each_elem(t->fd_preempt, sizeof(struct cgs_preempt_key), sizeof(struct cgs_preempt_val), 0,
			     take_pre, s)) ||
	    (err = take_drops(t, s)))
		return err;
	if ((err = sort_pre(s)))
		return err;
	size_t j = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct cg_sample *c = &s->cg[i];
		const struct cg_sample *p = walk_to(prev, &j, c->id);
		c->runq_max_all_ns = c->runq_max_ns;
		c->thr_max_all_ns = c->thr_max_ns;
		if (p && p->runq_max_all_ns > c->runq_max_all_ns)
			c->runq_max_all_ns = p->runq_max_all_ns;
		if (p && p->thr_max_all_ns > c->thr_max_all_ns)
			c->thr_max_all_ns = p->thr_max_all_ns;
		if (p && !c->thr_inh_by)
			c->thr_inh_by = p->thr_inh_by;
	}
	return 0;
}

/* Empty s for another read, keeping its arrays for it. */
static void snapshot_clear(struct snapshot *s)
{
	struct snapshot keep = { .cg = s->cg, .cap = s->cap, .pre = s->pre, .precap = s->precap,
				 .want_running = s->want_running, .running = s->running,
				 .no_oncpu_slots = s->no_oncpu_slots };

	for (size_t i = 0; (s->arrays || s->per_cpu) && i < s->n; i++) {
		free(s->cg[i].cpu);
		free(s->cg[i].thr_cpu);
		s->cg[i].cpu = NULL;
		s->cg[i].thr_cpu = NULL;
	}
	free(s->tasks);
	*s = keep;
}

int snapshot_take_view(const struct tracer_view *t, struct snapshot *s, const struct snapshot_how *how)
{
	return read_view(t, s, how->per_cpu, how->prev, how->light);
}

int snapshot_take(struct tracer *tr, struct snapshot *s, const struct snapshot_how *how)
{
	struct tracer_view view;
	int err;

	snapshot_clear(s);
	if (how->drops) {
		tracer_begin_drops(tr, &view);
		err = take_drops(&view, s);
	} else if (!(err = tracer_begin_read(tr, &view, !how->totals && !how->light))) {
		err = read_view(&view, s, how->per_cpu, how->prev, how->light);
	}
	tracer_end_read(tr);
	return err;
}

void snapshot_free(struct snapshot *s)
{
	snapshot_clear(s);
	free(s->cg);
	free(s->pre);
	free(s->running);
	memset(s, 0, sizeof(*s));
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void snapshot_make_origin(struct snapshot *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct cg_sample *c = &s->cg[i];
		c->runq_max_ns = c->thr_max_ns = c->runq_max_all_ns = c->thr_max_all_ns = 0;
	}
	for (size_t i = 0; i < s->ntasks; i++)
		s->tasks[i].runq_max_ns = s->tasks[i].runq_max_all_ns = 0;
	s->origin = true;
}

/* out = cur - prev into out, empty with its arrays (NULL or kept from an earlier delta). */
static int delta(const struct snapshot *prev, const struct snapshot *cur, struct snapshot *out)
{
	bool since_start = !prev || prev->origin;

	out->t_ns = cur->t_ns;
	out->ncpus = cur->ncpus;
	out->per_cpu = cur->per_cpu;
	if (ROOM_FOR(out->cg, cur->n, out->cap))
		return -ENOMEM;
	size_t j = 0;
	for (size_t i = 0; i < cur->n; i++) {
		const struct cg_sample *c = &cur->cg[i];
		const struct cg_sample *p = walk_to(prev, &j, c->id);
		struct cg_counters d;
		uint64_t any = 0;

		/* Counters only grow; a smaller value means the map slot was reused. */
		if (p && (p->c.runq_count > c->c.runq_count || p->c.wakeups > c->c.wakeups))
			p = NULL;
		for (size_t k = 0; k < CG_NWORDS; k++)
			any |= d.w[k] = sub(c->c.w[k], p ? p->c.w[k] : 0);
		if (!any)
			continue;
		struct cg_sample *o = cg_add(out, c->id);
		if (!o)
			return -ENOMEM;
		o->c = d;
		/* An interval has its own maxima; "since start" the running ones. */
		o->runq_max_ns = since_start ? c->runq_max_all_ns : c->runq_max_ns;
		o->thr_max_ns = since_start ? c->thr_max_all_ns : c->thr_max_ns;
		o->runq_max_all_ns = c->runq_max_all_ns;
		o->thr_max_all_ns = c->thr_max_all_ns;
		o->thr_inh_by = c->thr_inh_by;
		if (c->thr_cpu) {
			if (!(o->thr_cpu = calloc(cur->ncpus, sizeof(*o->thr_cpu))))
				return -ENOMEM;
			out->arrays = true;
			for (int k = 0; k < cur->ncpus; k++) {
				o->thr_cpu[k].count = sub(c->thr_cpu[k].count, p && p->thr_cpu ? p->thr_cpu[k].count : 0);
				o->thr_cpu[k].ns = sub(c->thr_cpu[k].ns, p && p->thr_cpu ? p->thr_cpu[k].ns : 0);
			}
		}
		if (o->cpu && c->cpu) {
			for (int k = 0; k < cur->ncpus; k++) {
				const struct cg_cpu *pk = p && p->cpu ? &p->cpu[k] : NULL;
				for (size_t f = 0; f < sizeof(o->cpu[k].w) / sizeof(o->cpu[k].w[0]); f++)
					o->cpu[k].w[f] = sub(c->cpu[k].w[f], pk ? pk->w[f] : 0);
			}
		}
	}
	for (size_t i = 0; i < cur->npre; i++) {
		const struct preempt_sample *c = &cur->pre[i];
		const struct preempt_sample *p = NULL;
		if (prev && prev->npre)
			p = bsearch(c, prev->pre, prev->npre, sizeof(*c), cmp_pre);
		uint64_t n = sub(c->count, p ? p->count : 0), ns = sub(c->behind_ns, p ? p->behind_ns : 0);
		if ((n || ns) && pre_add(out, c->victim, c->preemptor, n, ns))
			return -ENOMEM;
	}
	for (int i = 0; i < CGS_DROP__COUNT; i++)
		out->drops[i] = sub(cur->drops[i], prev ? prev->drops[i] : 0);
	return tasks_delta(prev, cur, out);
}

int snapshot_delta(const struct snapshot *prev, const struct snapshot *cur, struct snapshot *out)
{
	snapshot_clear(out);
	return delta(prev, cur, out);
}

void snapshot_swap(struct snapshot *a, struct snapshot *b)
{
	struct snapshot t = *a;

	*a = *b;
	*b = t;
}

/* A sample's place in a regrouping: its group's id, and where it is in d. */
struct regroup_ent {
	uint64_t gid;
	size_t i;
};

static int cmp_regroup(const void *a, const void *b)
{
	const struct regroup_ent *x = a, *y = b;

	if (x->gid != y->gid)
		return x->gid < y->gid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* dst += src: the counters and histograms add (slot by slot), maxima are the larger. */
static int sample_add(struct cg_sample *dst, const struct cg_sample *src, int ncpus)
{
	for (size_t k = 0; k < CG_NWORDS; k++)
		dst->c.w[k] += src->c.w[k];
	dst->runq_max_ns = max_u64(dst->runq_max_ns, src->runq_max_ns);
	dst->thr_max_ns = max_u64(dst->thr_max_ns, src->thr_max_ns);
	dst->runq_max_all_ns = max_u64(dst->runq_max_all_ns, src->runq_max_all_ns);
	dst->thr_max_all_ns = max_u64(dst->thr_max_all_ns, src->thr_max_all_ns);
	if (src->thr_cpu) {
		if (!dst->thr_cpu && !(dst->thr_cpu = calloc(ncpus, sizeof(*dst->thr_cpu))))
			return -ENOMEM;
		for (int k = 0; k < ncpus; k++) {
			dst->thr_cpu[k].count += src->thr_cpu[k].count;
			dst->thr_cpu[k].ns += src->thr_cpu[k].ns;
		}
	}
	if (src->cpu && dst->cpu)
		for (int k = 0; k < ncpus; k++)
			for (size_t f = 0; f < sizeof(dst->cpu[k].w) / sizeof(dst->cpu[k].w[0]); f++)
				dst->cpu[k].w[f] += src->cpu[k].w[f];
	return 0;
}

int snapshot_regroup(const struct snapshot *d, uint64_t (*map)(void *ctx, uint64_t id), void *ctx,
		     struct snapshot *out)
{
	struct regroup_ent *e = malloc((d->n ? d->n : 1) * sizeof(*e));
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->t_ns = d->t_ns;
	out->ncpus = d->ncpus;
	out->per_cpu = d->per_cpu;
	memcpy(out->drops, d->drops, sizeof(out->drops));
	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++)
		e[i] = (struct regroup_ent){ map(ctx, d->cg[i].id), i };
	qsort(e, d->n, sizeof(*e), cmp_regroup);
	/* Groups come out in id order, as a snapshot's samples must be. */
	for (size_t i = 0; i < d->n && !err; i++) {
		struct cg_sample *o = out->n && out->cg[out->n - 1].id == e[i].gid ? &out->cg[out->n - 1]
										   : cg_add(out, e[i].gid);
		const struct cg_sample *src = &d->cg[e[i].i];
		err = o ? sample_add(o, src, d->ncpus) : -ENOMEM;
		out->arrays |= src->thr_cpu != NULL;
		/*
		 * Waits held by an ancestor's quota: that ancestor's group is
		 * named instead. When it is this group (a container held by its
		 * pod's quota), the quota is the group's own: not inherited.
		 */
		uint64_t by = !err && src->thr_inh_by ? map(ctx, src->thr_inh_by) : 0;
		if (by == e[i].gid)
			o->c.thr_inh_ns -= src->c.thr_inh_ns;
		else if (by && !o->thr_inh_by)
			o->thr_inh_by = by;
	}
	free(e);
	for (size_t i = 0; i < d->npre && !err; i++)
		err = pre_add(out, map(ctx, d->pre[i].victim), map(ctx, d->pre[i].preemptor), d->pre[i].count,
			      d->pre[i].behind_ns);
	if (err)
		return err;
	/* Two members' preemptions by members of one other group are one pair now. */
	if ((err = sort_pre(out)))
		return err;
	size_t w = 0;
	for (size_t i = 0; i < out->npre; i++) {
		if (w && !cmp_pre(&out->pre[w - 1], &out->pre[i])) {
			out->pre[w - 1].count += out->pre[i].count;
			out->pre[w - 1].behind_ns += out->pre[i].behind_ns;
		}
		else
			out->pre[w++] = out->pre[i];
	}
	out->npre = w;
	return 0;
}
