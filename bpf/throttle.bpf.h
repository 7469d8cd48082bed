/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CFS bandwidth throttling. An episode is one throttle of one cfs_rq, from the
 * throttle to the unthrottle. A task held by a throttle is runnable but waits
 * for the unthrottle. A limited task is one whose group, or an ancestor, has a
 * CFS quota (tg_limited). One of three backends (targ_thr) finds the episodes.
 *
 * The fentry backend hooks the return of throttle_cfs_rq, which throttled only
 * if cfs_rq->throttled is set then, and the entry of unthrottle_cfs_rq. The
 * kprobe backend does the same with kprobes. It keeps the argument per CPU from
 * entry to return: the rq lock is held, so nothing nests. The loader attaches
 * compiler clones too (.isra.0). Both time episodes in ktime, as
 * unthrottle_cfs_rq runs from the period timer before it updates the rq clock,
 * which may be stale.
 *
 * The tracepoint backend has no throttle hooks. A runnable task switched out
 * throttled opens an episode. A later switch on that CPU that finds the cfs_rq
 * unthrottled ends it, as does the switch-in of a task it held, on any CPU. It
 * uses the hot path's clock (sched_now). The map thr_last is in each backend's
 * clock; wait_throttled_by converts a wait's start to it.
 *
 * Up to v6.17 a throttled cfs_rq is dequeued whole (the per-cfs_rq model); from
 * v6.18 each task is held when it next stops. The switch path calls the
 * backends only through the hooks at the end of this file.
 */
#ifndef CGS_THROTTLE_BPF_H
#define CGS_THROTTLE_BPF_H

#include "common.bpf.h"

const volatile __u32 targ_thr = CGS_THR_NONE;
/* Waits found throttled where the task was before a move to another CPU (thr_migrate; -v shows it). */
__u64 thr_moved_waits = 0;

/*
 * Written once per episode: allocated on use, as preallocation would make
 * start-up grow with --max-cgroups.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192); /* 8 x --max-cgroups */
	__type(key, struct cgs_thr_key);
	__type(value, struct cgs_thr_stats);
} thr_stats SEC(".maps");

/* fentry/kprobe: the start of each throttle, by cfs_rq address, until its unthrottle. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct cgs_thr_start);
} thr_start SEC(".maps");

/* kprobe: the cfs_rq argument, from entry to return. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} thr_stash SEC(".maps");

/*
 * tracepoint: the throttled cfs_rqs each CPU checks at its switches: its own,
 * and those a wake-up here found.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgs_open);
} thr_open SEC(".maps");

/*
 * tracepoint: the open episodes, one per cfs_rq, shared by all CPUs. The first
 * CPU to see one over ends it (check_episodes, thr_switch_in), and the delete
 * is the claim: one deleter wins on every kernel from 5.8, with no
 * compare-and-swap. Any CPU must be able to end it: the waker's CPU that opened
 * it may idle through the unthrottle, and a held task pulled to another CPU
 * leaves no switch behind.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct cgs_opened);
} thr_opened SEC(".maps");

/*
 * The last episode of each cfs_rq, for waits that overlapped one without the
 * task being switched out throttled (per-cfs_rq model). Not an LRU: an eviction
 * would silently turn a throttled wait into run-queue latency. The loader
 * deletes entries with their cgroup; a full map is counted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct cgs_thr_last);
} thr_last SEC(".maps");

/* Each finished episode, for timelines (record's report, top --json). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} episodes SEC(".maps");

#ifndef EEXIST
#define EEXIST 17 /* what a BPF_NOEXIST update of an existing key returns */
#endif

#define CGS_STALE_NS (30ULL * 1000000000ULL)
/* Only waits this long are checked against throttle episodes: throttles last ms. */
#define CGS_LONG_WAIT_NS 1000000ULL

static __always_inline void thr_remember(__u64 cfs_rq, __u64 cgid, __u64 start, __u64 end)
{
	struct cgs_thr_last v = { .start = start, .end = end, .cgid = cgid };

	if (bpf_map_update_elem(&thr_last, &cfs_rq, &v, BPF_ANY))
		count_drop(CGS_DROP_THR_LAST_FULL);
}

static __always_inline __u64 overlapped(__u64 cfs_rq, __u64 since)
{
	struct cgs_thr_last *l = bpf_map_lookup_elem(&thr_last, &cfs_rq);

	return l && (l->end == 0 || l->end > since) ? l->cgid : 0;
}

/*
 * The episodes' figures of a cgroup on a CPU, made if missing. thr_begin makes
 * them at the throttle, on the throttled CPU. Since v6.1 an element of this map
 * comes from a small per-CPU cache refilled by irq_work. The period timer
 * unthrottles every CPU's run queues in one interrupt on one CPU, and making
 * all their figures there could empty that cache. A failure is counted
 * (throttle_map_full).
 */
static __always_inline struct cgs_thr_stats *thr_stats_of(__u64 cgid, __u32 cpu)
{
	struct cgs_thr_key k = { .cgid = cgid, .cpu = cpu };
	struct cgs_thr_stats *s = bpf_map_lookup_elem(&thr_stats, &k);

	if (!s) {
		static const struct cgs_thr_stats zero;
		bpf_map_update_elem(&thr_stats, &k, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&thr_stats, &k);
	}
	return s;
}

/* Count an episode of d ns that ended `ago` ns before now, and send it to the timeline. */
static __always_inline void thr_account_ago(__u64 cgid, __u32 cpu, __u64 d, __u64 ago)
{
	struct cgs_episode *e = bpf_ringbuf_reserve(&episodes, sizeof(*e), 0);

	if (e) {
		e->cgid = cgid;
		e->end_ns = bpf_ktime_get_ns() - ago;
		e->start_ns = e->end_ns - d;
		e->cpu = cpu;
		e->flags = 0;
		bpf_ringbuf_submit(e, 0);
	} else {
		count_drop(CGS_DROP_EPISODE_LOST);
	}
	struct cgs_thr_stats *s = thr_stats_of(cgid, cpu);

	if (!s) {
		count_drop(CGS_DROP_THR_FULL);
		return;
	}
	__sync_fetch_and_add(&s->count, 1);
	__sync_fetch_and_add(&s->ns, d);
	__sync_fetch_and_add(&s->slots[log2_slot(d / targ_hist_div)], 1);
	/* Racy only against another episode ending at the same instant. */
	max_update(s->max, d);
}

static __always_inline void thr_account(__u64 cgid, __u32 cpu, __u64 d)
{
	thr_account_ago(cgid, cpu, d, 0);
}

/* Episodes are counted for the cgroups --cgroup names (and their descendants). */
static __always_inline void thr_account_shown(struct cfs_rq *c, __u64 cgid, __u64 d, bool direct)
{
	if (!targ_filter || tg_matches(cfs_rq_tg(c, direct), direct))
		thr_account(cgid, cfs_rq_cpu(c, direct), d);
}

/*
 * A throttle the kernel counted no time for, as it held no task (thr_end): sent
 * for the periods it counted, only.
 */
static __always_inline void thr_period_only(struct cfs_rq *c, __u64 cgid, __u64 start, __u64 end, bool direct)
{
	if (targ_filter && !tg_matches(cfs_rq_tg(c, direct), direct))
		return;
	struct cgs_episode *e = bpf_ringbuf_reserve(&episodes, sizeof(*e), 0);

	if (!e) {
		count_drop(CGS_DROP_EPISODE_LOST);
		return;
	}
	e->cgid = cgid;
	e->start_ns = start;
	e->end_ns = end;
	e->cpu = cfs_rq_cpu(c, direct);
	e->flags = CGS_EP_NO_TIME;
	bpf_ringbuf_submit(e, 0);
}

/*
 * tracepoint backend, per-cfs_rq model: a throttle within this task's wait that
 * no switch saw, as the cfs_rq throttled at an enqueue (a wake-up or a
 * load-balancer move). Counted as ending now, and remembered in thr_last for
 * the other tasks it held. Returns the throttled cgroup's id, or 0.
 */
static __always_inline __u64 unseen_throttle(struct cfs_rq *c, __u64 now, __u64 wait, bool direct)
{
	if (targ_thr != CGS_THR_TRACEPOINT || !per_cfs_rq_model())
		return 0;
	__u64 age = cfs_rq_throttle_age(c, wait, direct);
	if (!age)
		return 0;
	__u64 cgid = cfs_rq_cgid(c, direct);
	thr_remember((__u64)c, cgid, now - age, now);
	thr_account_shown(c, cgid, age, direct);
	return cgid;
}

/*
 * The two rare paths that walk a task's hierarchy are global functions:
 * verified once, not at every state that reaches their call sites. They take
 * numbers and use probe reads. Inlined with direct loads, they made up much of
 * the switch's verification on v6.18 (docs/performance.md, "Start-up").
 */

/*
 * The cgroup whose throttle overlapped the task's wait (from since, in the
 * episodes' clock), or 0. Ongoing episodes count too: their end in thr_last is
 * still 0. The cfs_rq the task was queued on (queued_rq) comes first, as the
 * task may have been pulled to another CPU after the unthrottle. The arguments
 * cfs_rq and group_se are the task's se.cfs_rq and se.parent.
 */
__noinline __u64 thr_wait_by(__u64 cfs_rq, __u64 group_se, __u64 queued_rq, __u64 since, __u64 now)
{
	struct cfs_rq *c = (void *)cfs_rq;
	struct sched_entity *se = (void *)group_se;
	__u64 by;

	if (queued_rq && queued_rq != cfs_rq && (by = overlapped(queued_rq, since)))
		return by;
	for (int i = 0; i < CGS_MAX_DEPTH && c; i++) {
		if ((by = overlapped((__u64)c, since)) || (by = unseen_throttle(c, now, now - since, false)))
			return by;
		if (!se)
			break;
		c = se_cfs_rq(se, false);
		se = se_parent(se, false);
	}
	return 0;
}

static __always_inline __u64 wait_throttled_by(struct task_struct *p, struct cgs_task *t, __u64 now, bool direct)
{
	__u64 since = t->queued_ns;

	/* fentry/kprobe episodes are in ktime, so the wait's start must be too (rare path). */
	if (targ_thr != CGS_THR_TRACEPOINT)
		since += bpf_ktime_get_ns() - now;
	return thr_wait_by((__u64)task_cfs_rq(p, false), (__u64)task_group_se(p, false), t->queued_rq, since, now);
}

/*
 * The cfs_rq whose quota holds a task (cfs_rq, group_se: its se.cfs_rq and
 * se.parent): its own, or the first throttled ancestor's.
 */
__noinline __u64 thr_holder(__u64 cfs_rq, __u64 group_se)
{
	struct cfs_rq *c = (void *)cfs_rq;
	struct sched_entity *se = (void *)group_se;

	for (int i = 0; i < CGS_MAX_DEPTH && c; i++) {
		if (cfs_rq_throttled(c, false))
			return (__u64)c;
		if (!se)
			break;
		c = se_cfs_rq(se, false);
		se = se_parent(se, false);
	}
	/* Throttle flag not visible (yet): charge its own group. */
	return cfs_rq;
}

/* Use the result with probe reads only: to the verifier it is a number. */
static __always_inline struct cfs_rq *throttler(struct task_struct *p)
{
	return (void *)thr_holder((__u64)task_cfs_rq(p, false), (__u64)task_group_se(p, false));
}

/*
 * Give up an open episode: not seen over in 30 s, or its cfs_rq address now
 * another cgroup's. Its record ends where it began, so no wait finds it
 * ongoing.
 */
static __always_inline void give_up(__u64 key, const struct cgs_opened *e)
{
	count_drop(CGS_DROP_THR_STALE);
	thr_remember(key, e->cgid, e->start, e->start);
}

/*
 * Open the episode of cfs_rq key. This and close_episode are global functions,
 * verified once per program, not at each call site.
 */
__noinline __u64 open_episode(__u64 key, __u64 cgid, __u64 now, __u64 end_cap)
{
	__u32 zero = 0;
	struct cgs_open *o = bpf_map_lookup_elem(&thr_open, &zero);
	struct cgs_opened v = { .start = now, .cgid = cgid, .end_cap = end_cap }, *e = NULL;
	bool placed = false;
	long err;

	if (!o)
		return 0;
	/*
	 * Open unless open already (another of its tasks stopped). If another
	 * CPU ended it between the insert and the lookup, try once more.
	 */
	bool opened = !(err = bpf_map_update_elem(&thr_opened, &key, &v, BPF_NOEXIST));
	if (err == -EEXIST && !(e = bpf_map_lookup_elem(&thr_opened, &key)))
		opened = !(err = bpf_map_update_elem(&thr_opened, &key, &v, BPF_NOEXIST));
	if (e && (e->cgid != cgid || now - e->start > CGS_STALE_NS)) {
		/* Left by a cgroup that had this cfs_rq address before, or never seen over. */
		give_up(key, e);
		*e = v;
		opened = true;
	} else if (e && !end_cap) {
		e->end_cap = 0; /* it holds a task now: its unthrottle will switch to it */
	}
	if (opened)
		thr_remember(key, cgid, now, 0);
	else if (!e)
		count_drop(CGS_DROP_THR_OPEN_FULL);
	/*
	 * Check it here from now; a new episode restarts this CPU's 30 s. Two
	 * passes carry no index out: one pass that did cost the verifier ten
	 * times the instructions.
	 */
	for (int i = 0; i < CGS_OPEN_MAX; i++) {
		if (o->cfs_rq[i] != key)
			continue;
		if (opened)
			o->start[i] = now;
		placed = true;
		break;
	}
	for (int i = 0; i < CGS_OPEN_MAX && !placed; i++) {
		if (o->cfs_rq[i])
			continue;
		o->cfs_rq[i] = key;
		o->start[i] = now;
		o->n++;
		placed = true;
	}
	/* No room here: ended only by a task it holds, or another CPU that looks at it. */
	if (!placed && opened)
		count_drop(CGS_DROP_THR_OPEN_FULL);
	return opened;
}

/*
 * End the open episode of cfs_rq key, seen over at now, unless another CPU did:
 * the delete decides. If still throttled after this CPU checked it for 30 s,
 * stop checking. The figures go to the cfs_rq's CPU. If the cfs_rq throttles
 * again between another CPU's lookup and delete, one episode is lost and the
 * other runs to the later end.
 */
__noinline __u64 close_episode(__u64 key, __u64 now, __u64 throttled)
{
	struct cgs_opened *e = bpf_map_lookup_elem(&thr_opened, &key);

	if (!e)
		return 0;
	struct cgs_opened v = *e;
	bool stale = now - v.start > CGS_STALE_NS;
	/* Still throttled: this CPU stops looking; given up only when the episode itself is that old. */
	if ((throttled && !stale) || bpf_map_delete_elem(&thr_opened, &key))
		return 0;
	if (stale) {
		give_up(key, &v);
		return 0;
	}
	__u64 end = v.end_cap && v.end_cap < now ? v.end_cap : now;
	if (end > v.start)
		thr_account_ago(v.cgid, cfs_rq_cpu((void *)key, false), end - v.start, now - end);
	thr_remember(key, v.cgid, v.start, end);
	return 1;
}

/* On a switch while episodes are looked at here: end those no longer throttled. */
static __always_inline void check_episodes(__u64 now)
{
	__u32 zero = 0;
	struct cgs_open *o = bpf_map_lookup_elem(&thr_open, &zero);

	if (!o || !o->n)
		return;
	for (int i = 0; i < CGS_OPEN_MAX; i++) {
		__u64 key = o->cfs_rq[i];

		if (!key)
			continue;
		bool throttled = cfs_rq_throttled_at(key);
		if (throttled && now - o->start[i] <= CGS_STALE_NS)
			continue;
		close_episode(key, now, throttled);
		o->cfs_rq[i] = 0;
		if (o->n)
			o->n--;
	}
}

static __always_inline void thr_begin(struct cfs_rq *c, bool direct)
{
	__u64 key = (__u64)c;
	/* The rq clock the kernel has just read for the throttle (throttled_clock). */
	struct cgs_thr_start st = {
		.at = bpf_ktime_get_ns(),
		.rq = direct ? c->rq->clock : BPF_CORE_READ(c, rq, clock),
	};

	if (!cfs_rq_throttled(c, direct))
		return; /* it found runtime after all */
	st.cgid = cfs_rq_cgid(c, direct);
	/*
	 * A start of its group's left from the last throttle: that unthrottle's
	 * kprobe was skipped. That happens while bpf_prog_active is held, as by
	 * a BPF syscall on that CPU, and kernels up to v6.6 count no such miss.
	 * The episode is lost, and counted. A start of another group's is a
	 * removed group's cfs_rq address, reused.
	 */
	struct cgs_thr_start *old = bpf_map_lookup_elem(&thr_start, &key);
	if (old && old->cgid == st.cgid)
		count_drop(CGS_DROP_THR_END_MISSED);
	if (bpf_map_update_elem(&thr_start, &key, &st, BPF_ANY))
		count_drop(CGS_DROP_THR_FULL);
	thr_remember(key, st.cgid, st.at, 0);
	/* Make its figures here, on its own CPU (thr_stats_of); a failure is counted at the end. */
	if (!targ_filter || tg_matches(cfs_rq_tg(c, direct), direct))
		thr_stats_of(st.cgid, cfs_rq_cpu(c, direct));
}

static __always_inline void thr_end(struct cfs_rq *c, bool direct)
{
	__u64 key = (__u64)c;
	struct cgs_thr_start *start = bpf_map_lookup_elem(&thr_start, &key);

	if (!start) {
		/* Its start was missed: still, waits until now overlapped it. */
		count_drop(CGS_DROP_THR_UNPAIRED);
		thr_remember(key, cfs_rq_cgid(c, direct), 0, bpf_ktime_get_ns());
		return;
	}
	__u64 s0 = start->at, r0 = start->rq, now = bpf_ktime_get_ns();
	bpf_map_delete_elem(&thr_start, &key);
	__u64 cgid = cfs_rq_cgid(c, direct);
	thr_remember(key, cgid, s0, now);
	/*
	 * The throttled time as the kernel counts it: rq_clock -
	 * throttled_clock at the unthrottle. Up to v6.5 throttled_clock is the
	 * throttle's own rq clock (r0). Since v6.6 (79462e8c879a) it is set
	 * only once a task is queued, and since v6.18 once one is held. The
	 * kernel's count then starts late, and that delay comes off the span.
	 * The span is ktime, as the rq clock is updated only inside the
	 * unthrottle. A throttled_clock of 0 is no time and no episode. Its
	 * refills still count as throttled periods, so it is sent for those.
	 */
	__u64 tk = direct ? c->throttled_clock : BPF_CORE_READ(c, throttled_clock), d = now - s0;

	if (tk && tk > r0)
		d = tk - r0 < d ? d - (tk - r0) : 0;
	if (tk && d)
		thr_account_shown(c, cgid, d, direct);
	else
		thr_period_only(c, cgid, s0, now, direct);
}

/* --- hooks of the switch path ---------------------------------------------- */

/* Every switch, first: the tracepoint backend closes episodes no longer throttled. */
static __always_inline void thr_switch(__u64 now)
{
	if (targ_thr == CGS_THR_TRACEPOINT)
		check_episodes(now);
}

/*
 * A runnable, limited task is switched out. If its hierarchy is throttled, its
 * wait from now is throttled time, and the tracepoint backend opens the
 * episode. Returns whether it was throttled.
 */
static __always_inline bool thr_switch_out(struct task_struct *prev, struct cgs_task *t, __u64 now,
					   bool direct)
{
	if (!task_throttled(prev, direct))
		return false;
	struct cfs_rq *c = throttler(prev);
	t->thr_since = now;
	t->thr_by = cfs_rq_cgid(c, false);
	t->thr_rq = (__u64)c;
	if (targ_thr == CGS_THR_TRACEPOINT)
		open_episode((__u64)c, t->thr_by, now, 0);
	return true;
}

/*
 * A task of the filter (cg) stopped while not runnable. With the tracepoint
 * backend and the per-cfs_rq model, the quota may have run out as it stopped:
 * tasks behind it are held, and no runnable task stops to show it.
 */
static __always_inline void thr_switch_out_asleep(struct task_struct *prev, const struct cgs_cpu_cur *cur,
						  __u64 cg, __u64 now, bool direct)
{
	if (targ_thr != CGS_THR_TRACEPOINT || !cur->limited || !cg || !per_cfs_rq_model() ||
	    !task_throttled(prev, direct))
		return;
	struct cfs_rq *c = throttler(prev);
	/*
	 * Up to v6.5 the kernel counts a throttle from its start, tasks held or
	 * not. Since v6.6 (79462e8c879a) it counts only from when a task is
	 * queued, which sets throttled_clock; that wake-up opens the episode.
	 * With no task held, the unthrottle reschedules nothing and no switch
	 * shows the end. So the episode ends by the group's next refill, unless
	 * a held task shows it first.
	 */
	if (!BPF_CORE_READ(c, throttled_clock))
		return;
	__u64 cap = 0;
	if (!cfs_rq_runnable(c)) {
		__u64 kt = bpf_ktime_get_ns(), refill = tg_next_refill(cfs_rq_tg(c, false));
		if (refill > kt)
			cap = now + (refill - kt);
	}
	open_episode((__u64)c, cfs_rq_cgid(c, false), now, cap);
}

/*
 * A task of the filter is switched in: whether its wait was throttled time, and
 * its length in *d. It was if the task was switched out throttled, or waited
 * long enough and its cfs_rq or an ancestor's throttled meanwhile (t->thr_by
 * names the throttling cgroup).
 */
static __always_inline bool thr_switch_in(struct task_struct *next, struct cgs_task *t, __u64 now,
					  __u64 *d, bool direct)
{
	if (t->thr_since) {
		*d = elapsed(now, t->thr_since);
		/*
		 * Held by a quota, it runs now: that throttle is over, wherever
		 * it was (thr_opened).
		 */
		if (targ_thr == CGS_THR_TRACEPOINT && t->thr_rq && !cfs_rq_throttled_at(t->thr_rq))
			close_episode(t->thr_rq, now, false);
		return true;
	}
	if (t->limited && t->queued_ns && elapsed(now, t->queued_ns) > CGS_LONG_WAIT_NS &&
	    (t->thr_by = wait_throttled_by(next, t, now, direct))) {
		*d = elapsed(now, t->queued_ns);
		return true;
	}
	return false;
}

/*
 * A limited task is woken into a throttled hierarchy (per-cfs_rq model): it
 * waits for the quota, not for a CPU. Returns whether it does.
 */
static __always_inline bool thr_wakeup(struct task_struct *p, struct cgs_task *t, __u64 now, bool direct)
{
	if (!task_throttled(p, direct))
		return false;
	struct cfs_rq *c = throttler(p);
	t->thr_since = now;
	t->thr_by = cfs_rq_cgid(c, false);
	t->thr_rq = (__u64)c;
	/*
	 * tracepoint backend: its cfs_rq may have throttled at this enqueue,
	 * which no switch shows. Open the episode from the kernel's own start
	 * if kept.
	 */
	if (targ_thr == CGS_THR_TRACEPOINT)
		open_episode((__u64)c, t->thr_by, now - cfs_rq_throttle_age(c, CGS_STALE_NS, false), 0);
	return true;
}

/*
 * A waiting, limited task moves to another CPU (the tracepoint fires before the
 * move). The switch-in checks only the cfs_rqs where the wait began and ends,
 * so a cfs_rq that held the task in between is checked now. Else a task moved
 * onto a throttling CPU and pulled back after the unthrottle counts its wait as
 * run-queue latency.
 */
static __always_inline void thr_migrate(struct task_struct *p, struct cgs_task *t, bool direct)
{
	__u64 now = sched_now(p, direct);

	if (t->thr_since || !t->queued_ns || elapsed(now, t->queued_ns) <= CGS_LONG_WAIT_NS ||
	    !(t->thr_by = wait_throttled_by(p, t, now, direct)))
		return;
	t->thr_since = t->queued_ns;
	t->queued_ns = 0;
	thr_moved_waits++;
}

/* --- the fentry and kprobe backends' programs -------------------------------- */

SEC("fexit/throttle_cfs_rq")
int BPF_PROG(fexit_throttle, struct cfs_rq *cfs_rq)
{
	thr_begin(cfs_rq, true);
	return 0;
}

SEC("fentry/unthrottle_cfs_rq")
int BPF_PROG(fentry_unthrottle, struct cfs_rq *cfs_rq)
{
	thr_end(cfs_rq, true);
	return 0;
}

/* SEC("kprobe") without a name: the loader attaches to the resolved symbols. */
SEC("kprobe")
int BPF_KPROBE(kprobe_throttle, struct cfs_rq *cfs_rq)
{
	__u32 zero = 0;
	__u64 *slot = bpf_map_lookup_elem(&thr_stash, &zero);

	if (slot)
		*slot = (__u64)cfs_rq;
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_throttle)
{
	__u32 zero = 0;
	__u64 *slot = bpf_map_lookup_elem(&thr_stash, &zero);

	if (slot && *slot) {
		thr_begin((struct cfs_rq *)*slot, false);
		*slot = 0;
	}
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kprobe_unthrottle, struct cfs_rq *cfs_rq)
{
	thr_end(cfs_rq, false);
	return 0;
}

#endif /* CGS_THROTTLE_BPF_H */
