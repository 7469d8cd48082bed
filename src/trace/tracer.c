// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The tracer's lifecycle and its reads (tracer.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "trace/tracer.h"
#include "trace/per_steps.h"
#include "lib/util.h"

/* A loaded program's kernel info; false for one never loaded (a backend not chosen). */
static bool prog_info(const struct bpf_program *p, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);
	int fd = bpf_program__fd(p);

	memset(info, 0, sizeof(*info));
	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, info, &len);
}

/*
 * Count the runs of our programs that the kernel skipped; each is a lost
 * event. The kernel skips a program while another one runs on that CPU
 * (counted for fentry/fexit since 5.12, for tracepoints since 6.2). It
 * skips kprobes while the CPU's bpf_prog_active is held (counted since
 * 6.7). Any kprobe or perf-event program holds it, and so does a BPF
 * syscall's map access (bpf_disable_instrumentation). Where the kernel
 * does not count skips, the throttle pairs are checked instead
 * (throttle.bpf.h thr_begin and thr_end).
 */
static uint64_t prog_misses(const struct tracer *t)
{
	struct bpf_program *p;
	struct bpf_prog_info info;
	uint64_t n = 0;

	bpf_object__for_each_program(p, t->skel->obj)
		if (prog_info(p, &info))
			n += info.recursion_misses;
	return n;
}

void tracer_recheck_limits(struct tracer *t)
{
	if (t->skel)
		__atomic_add_fetch(&t->skel->bss->lim_gen, 1, __ATOMIC_RELAXED);
}

void tracer_tasks_follow(struct tracer *t, uint64_t id)
{
	struct cgs_task_key k;

	if (!t->skel || t->fd_tasks < 0 || !t->skel->rodata->targ_tasks_one)
		return;
	/* None recorded while the old ones go; a task caught in between is another cgroup's, left out when shown. */
	__atomic_store_n(&t->skel->bss->task_cg, 0, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i <= t->max_task_rows && !bpf_map_get_next_key(t->fd_tasks, NULL, &k); i++)
		bpf_map_delete_elem(t->fd_tasks, &k);
	__atomic_store_n(&t->skel->bss->task_cg, id, __ATOMIC_RELAXED);
}

void tracer_detach(struct tracer *t)
{
	attach_links_destroy(t);
	if (t->skel)
		sched_bpf__detach(t->skel);
}

int tracer_start(struct tracer *t, const struct tracer_opts *o)
{
	int err;

	memset(t, 0, sizeof(*t));
	tracer_libbpf_quiet();
	if ((err = tracer_precheck()))
		return err;
	if ((err = attach_start(t, o)))
		return err;
	t->fd_hot = bpf_map__fd(t->skel->maps.cg_hot);
	t->fd_shard = bpf_map__fd(t->skel->maps.cg_shard);
	/*
	 * Map writable, because the loader zeroes a slot's figures before the
	 * slot is reused (slots.c). The mapping covers only the slots in use,
	 * and slots_refresh extends it. Map the first slots here, so a kernel
	 * that refuses is found out now, not at the first read.
	 */
	if ((err = mapwin_open(&t->hotw, t->fd_hot, sizeof(struct cgs_cg_hot), t->ncpus, o->cfg->max_cgroups)) ||
	    (err = mapwin_open(&t->shardw, t->fd_shard, sizeof(struct cgs_cg_shard), t->nshards, o->cfg->max_cgroups)) ||
	    (err = mapwin_cover(&t->hotw, 1)) || (err = mapwin_cover(&t->shardw, 1))) {
		cgs_err("cannot map the per-cgroup figures (%s)", strerror(-err));
		goto fail;
	}
	t->hot = t->hotw.base;
	t->shard = t->shardw.base;
	cgs_debug("per-cgroup figures: each CPU's own (%zu KiB) and %d shard%s (%zu KiB, %s adds)",
		  cg_hot_bytes(t->ncpus, o->cfg->max_cgroups) >> 10, t->nshards, t->nshards == 1 ? "" : "s",
		  cg_shard_bytes(t->nshards, o->cfg->max_cgroups) >> 10, t->nshards < t->ncpus ? "atomic" : "plain");
	t->fd_thr = bpf_map__fd(t->skel->maps.thr_stats);
	t->fd_preempt = bpf_map__fd(t->skel->maps.preempt);
	t->fd_cur = bpf_map__fd(t->skel->maps.cpu_cur);
	t->fd_drops = bpf_map__fd(t->skel->maps.drops);
	t->fd_tasks = o->cfg->tasks ? bpf_map__fd(t->skel->maps.task_stats) : -1;
	t->max_task_rows = o->cfg->tasks ? o->cfg->max_task_rows : 0;
	t->why = o->cfg->why;
	episodes_open(t, o->cfg->long_wait_ns);
	t->max_cgroups = o->cfg->max_cgroups;
	t->max_preempt = o->cfg->max_cgroups * 4;
	t->sl = (struct slot_table){
		.max = o->cfg->max_cgroups, .ncpus = t->ncpus, .hot = t->hot, .shard = t->shard, .nshards = t->nshards,
		.hotw = &t->hotw, .shardw = &t->shardw,
		.per_cpu = o->cfg->per_cpu, .gen = &t->skel->bss->slot_gen,
		.fd_free = bpf_map__fd(t->skel->maps.free_slots), .fd_gone = bpf_map__fd(t->skel->maps.gone),
		.fd_slot = bpf_map__fd(t->skel->maps.cg_slot), .fd_owner = bpf_map__fd(t->skel->maps.slot_owner),
		.fd_thr = t->fd_thr, .fd_preempt = t->fd_preempt, .fd_cur = t->fd_cur,
		.fd_thr_last = bpf_map__fd(t->skel->maps.thr_last),
		.fd_thr_opened = bpf_map__fd(t->skel->maps.thr_opened),
		.fd_rcu_outer = bpf_map__fd(t->skel->maps.rcu_sync), .fd_rcu_inner = bpf_map__fd(t->skel->maps.rcu_inner),
		.on_learn = o->on_learn, .on_removed = o->on_removed,
		.on_forget = o->on_forget,
		.names_ctx = o->names_ctx,
	};
	t->on_removals_told = o->on_removals_told;
	t->names_ctx = o->names_ctx;
	if ((err = slots_init(&t->sl)))
		goto fail;
	if (o->cfg->per && (err = tracer_per_open(t))) {
		cgs_err("cannot map the demand steps (%s)", strerror(-err));
		goto fail;
	}
	if (o->cfg->keep_removed_ns > t->sl.keep_ns)
		t->sl.keep_ns = o->cfg->keep_removed_ns;
	pthread_mutex_init(&t->read_lock, NULL);
	t->refreshed_ns = now_ns();
	t->seed = seed_cpus(t);
	t->attached_ns = now_ns();
	if (o->stop && *o->stop) {
		err = -EINTR;
		goto fail;
	}
	cgs_debug("attached: backend %s, throttle backend %s, task state in %s; %.1f ms after start",
		  t->backend, t->thr_backend, t->task_storage ? "task storage" : "LRU hash",
		  (now_ns() - cgs_t0_ns) / 1e6);
	return 0;
fail:
	/* Detaches and frees all that attach_start and the steps after it made. */
	tracer_stop(t);
	return err;
}

void tracer_stop(struct tracer *t)
{
	episodes_close(t);
	if (t->skel && t->skel->bss->thr_moved_waits)
		cgs_debug("%llu waits found throttled on a CPU the task was moved away from",
			  (unsigned long long)t->skel->bss->thr_moved_waits);
	if (t->skel && t->skel->bss->unseen_switches)
		cgs_debug("%llu switches the kernel did not trace, each repaired from the task's last arrival",
			  (unsigned long long)t->skel->bss->unseen_switches);
	if (t->skel && t->skel->bss->held_wakeups)
		cgs_debug("%llu wake-ups of tasks preempted before they blocked: no wait begun, as the kernel begins none",
			  (unsigned long long)t->skel->bss->held_wakeups);
	if (t->skel && t->skel->bss->moves_elsewhere)
		cgs_debug("%llu moves of tasks maybe running on another CPU, each CPU told what it runs after them",
			  (unsigned long long)t->skel->bss->moves_elsewhere);
	if (t->skel && t->skel->bss->moves_unmarked)
		cgs_debug("%llu moves of running tasks split at the task's own record, the mover's mark missing",
			  (unsigned long long)t->skel->bss->moves_unmarked);
	if (t->skel) {
		struct bpf_program *p;
		struct bpf_prog_info info;
		bpf_object__for_each_program(p, t->skel->obj)
			if (prog_info(p, &info) && info.recursion_misses)
				cgs_debug("program %s: %llu runs skipped by the kernel", bpf_program__name(p),
					  (unsigned long long)info.recursion_misses);
	}
	attach_release(t);
	tracer_per_close(t);
	mapwin_close(&t->hotw);
	mapwin_close(&t->shardw);
	t->hot = NULL;
	t->shard = NULL;
	slots_free(&t->sl);
}

int tracer_begin_read(struct tracer *t, struct tracer_view *v, bool close_epoch)
{
	uint64_t old = t->skel->bss->epoch;
	int err;

	pthread_mutex_lock(&t->read_lock);
	/*
	 * Resync the CPUs at every read once the kernel was seen to skip the
	 * tracepoint. Also resync at the read after a move of a task that may
	 * be running on another CPU (sched.bpf.c cg_attach).
	 */
	uint64_t moves = __atomic_load_n(&t->skel->bss->moves_elsewhere, __ATOMIC_RELAXED);
	if (t->skel->bss->unseen_switches || moves != t->moves_synced) {
		if (moves != t->moves_synced)
			cgs_debug("moves of running tasks: %llu, %llu since the last read: every CPU told what it runs",
				  (unsigned long long)moves, (unsigned long long)(moves - t->moves_synced));
		t->moves_synced = moves;
		tracer_sync_cpus(t);
	}
	/* The programs write the new epoch's max slot from now; the old one is ours. */
	if (close_epoch)
		__atomic_store_n(&t->skel->bss->epoch, old + 1, __ATOMIC_SEQ_CST);
	t->refreshed_ns = now_ns();
	if ((err = slots_refresh(&t->sl, t->refreshed_ns, true)))
		return err;
	if (t->on_removals_told)
		t->on_removals_told(t->names_ctx, t->rmdir_hooked && !t->skel->bss->gone_lost_total);
	*v = (struct tracer_view){
		.epoch = old, .ncpus = t->ncpus, .max_cgroups = t->max_cgroups, .hot = t->hot, .shard = t->shard,
		.nshards = t->nshards,
		.nslots = t->sl.nslots, .owner = t->sl.owner, .rank = t->sl.rank, .nowned = t->sl.nowned,
		.parked = t->sl.parked, .nparked = t->sl.nparked, .parked_lost = t->sl.parked_lost,
		.per_lost = __atomic_load_n(&t->sl.per_lost, __ATOMIC_RELAXED),
		.prog_missed = prog_misses(t), .recycled = t->sl.recycled,
		.fd_thr = t->fd_thr, .fd_preempt = t->fd_preempt, .fd_cur = t->fd_cur,
		.fd_drops = t->fd_drops, .fd_tasks = t->fd_tasks, .why = t->why,
		.task_threads = t->skel->rodata->targ_tasks == CGS_TASKS_THREAD,
		.task_cg = t->skel->rodata->targ_tasks_one ? __atomic_load_n(&t->skel->bss->task_cg, __ATOMIC_RELAXED)
							   : CGS_TASK_CG_ALL,
		.sync_round = t->skel->bss->sync_round,
	};
	return 0;
}

void tracer_begin_drops(struct tracer *t, struct tracer_view *v)
{
	pthread_mutex_lock(&t->read_lock);
	*v = (struct tracer_view){ .ncpus = t->ncpus, .fd_drops = t->fd_drops, .parked_lost = t->sl.parked_lost,
		.per_lost = __atomic_load_n(&t->sl.per_lost, __ATOMIC_RELAXED),
				   .prog_missed = prog_misses(t) };
}

void tracer_end_read(struct tracer *t)
{
	pthread_mutex_unlock(&t->read_lock);
}

void tracer_maintain(struct tracer *t)
{
	if (!t->skel)
		return;
	pthread_mutex_lock(&t->read_lock);
	uint64_t now = now_ns();
	if (now - t->refreshed_ns >= 1000000000ULL) {
		t->refreshed_ns = now;
		int err = slots_refresh(&t->sl, now, false);
		if (err)
			cgs_warn("recycling cgroup slots: %s", strerror(-err));
	}
	pthread_mutex_unlock(&t->read_lock);
}

uint64_t tracer_map_bytes(const struct tracer *t)
{
	uint64_t per_cpu = (uint64_t)t->ncpus;

	/*
	 * The sum covers cg_hot and cg_shard (arrays), and the parked figures
	 * (slots.h SLOTS_PARKED_MIN). It adds cg_slot (a hash, about 64 bytes
	 * of overhead an entry), slot_owner, free_slots and gone.
	 */
	uint64_t parked = t->max_cgroups > SLOTS_PARKED_MIN ? t->max_cgroups : SLOTS_PARKED_MIN;

	return cg_hot_bytes(t->ncpus, t->max_cgroups) + cg_shard_bytes(t->nshards, t->max_cgroups) +
	       parked * slots_park_units(&t->sl) * sizeof(struct cgs_cg_stats) +
	       t->max_cgroups * (12 + 64 + 8 + 4) +
	       (2ULL * t->max_cgroups + 1024) * sizeof(struct cgs_gone) +
	       t->max_preempt * (sizeof(struct cgs_preempt_key) + sizeof(struct cgs_preempt_val) + 64) +
	       (uint64_t)t->max_cgroups * 8 * (sizeof(struct cgs_thr_key) + sizeof(struct cgs_thr_stats) + 16) +
	       (uint64_t)t->max_task_rows * (sizeof(struct cgs_task_key) + 64 + per_cpu * sizeof(struct cgs_task_stats));
}

int tracer_prog_stats(struct tracer *t, void (*cb)(void *ctx, const char *name, uint64_t run_ns, uint64_t runs),
		      void *ctx)
{
	struct bpf_program *p;

	if (!t->skel)
		return -ENOENT;
	struct bpf_prog_info info;

	bpf_object__for_each_program(p, t->skel->obj)
		if (prog_info(p, &info))
			cb(ctx, bpf_program__name(p), info.run_time_ns, info.run_cnt);
	return 0;
}

