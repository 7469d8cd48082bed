/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-task figures for top --tasks and hist --per-task: a cgroup's rows, per
 * process or per thread. Off unless asked: with targ_tasks zero the verifier
 * prunes every hook, and the map has one entry.
 *
 * The switch path calls tasks_oncpu when a slice of prev ends, and tasks_runq
 * when a run-queue wait of next ends. A move calls tasks_ran.
 */
#ifndef CGS_TASKS_BPF_H
#define CGS_TASKS_BPF_H

#include "common.bpf.h"

const volatile __u32 targ_tasks = CGS_TASKS_OFF; /* enum cgs_tasks_mode */
/*
 * With targ_tasks_one, only the tasks of one cgroup are kept: the one top's
 * detail view shows. The loader sets task_cg to that cgroup, to 0 while none is
 * shown, or to CGS_TASK_CG_ALL for every cgroup's tasks (the screen's task
 * rows). Every other task then costs one compare, and the map holds one
 * cgroup's tasks, not a host's.
 */
const volatile bool targ_tasks_one = false;
__u64 task_cg = 0;

/*
 * Per CPU, so that threads of one process on two CPUs never race on one
 * counter. Preallocated (the hash's default), so the switch path never
 * allocates, and the bound is --max-tasks.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1); /* --max-tasks when asked */
	__type(key, struct cgs_task_key);
	__type(value, struct cgs_task_stats);
} task_stats SEC(".maps");

/* The value a new entry starts from (too big for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgs_task_stats);
} task_stats_new SEC(".maps");

static __always_inline struct cgs_task_stats *tasks_entry(struct task_struct *p, __u64 cg, __u64 now,
							  bool direct)
{
	struct cgs_task_key k = { .cgid = cg };
	struct cgs_task_stats *s, *z;
	__u32 zero = 0;

	if (targ_tasks_one && cg != task_cg && task_cg != CGS_TASK_CG_ALL)
		return NULL;
	k.id = targ_tasks == CGS_TASKS_THREAD ? task_pid(p, direct) : task_tgid(p, direct);
	if ((s = bpf_map_lookup_elem(&task_stats, &k)))
		return s;
	if (!(z = bpf_map_lookup_elem(&task_stats_new, &zero)))
		return NULL;
	/*
	 * The scratch entry is this CPU's alone: fill it, insert a copy, and
	 * leave it holding the last name.
	 */
	z->tgid = task_tgid(p, direct);
	z->comm_ns = now;
	bpf_probe_read_kernel_str(z->comm, sizeof(z->comm), p->comm);
	if (bpf_map_update_elem(&task_stats, &k, z, BPF_NOEXIST) && !bpf_map_lookup_elem(&task_stats, &k)) {
		count_drop(CGS_DROP_TASKS_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&task_stats, &k);
}

/*
 * A slice of p ended: d ns on a CPU in cgroup cg. The task switched out
 * runnable or asleep (tasks_oncpu), or went on in another cgroup after a move
 * while it ran (tasks_ran). It is still current, so its name is cheap to take
 * and stays fresh: a process named "sh" until it exec'd shows its new name.
 */
static __always_inline struct cgs_task_stats *tasks_ran(struct task_struct *p, __u64 cg, __u64 now, __u64 d,
							 bool direct)
{
	struct cgs_task_stats *s;

	if (!targ_tasks || !(s = tasks_entry(p, cg, now, direct)))
		return NULL;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	s->comm_ns = now;
	s->oncpu_ns += d;
	return s;
}

static __always_inline void tasks_oncpu(struct task_struct *p, __u64 cg, __u64 now, __u64 d, bool runnable,
					bool direct)
{
	struct cgs_task_stats *s = tasks_ran(p, cg, now, d, direct);

	if (!s)
		return;
	if (runnable)
		s->sw_invol++;
	else
		s->sw_vol++;
}

/* A run-queue wait of p ended: d ns; woken: it began with a wake-up. */
static __always_inline void tasks_runq(struct task_struct *p, __u64 cg, __u64 now, __u64 d, __u32 woken,
				       bool direct)
{
	struct cgs_task_stats *s;

	if (!targ_tasks || !(s = tasks_entry(p, cg, now, direct)))
		return;
	s->wakeups += woken;
	s->runq_count++;
	s->runq_sum_ns += d;
	max_update(s->runq_max, d);
	s->runq_slots[log2_slot(d / targ_hist_div)]++;
}

#endif /* CGS_TASKS_BPF_H */
