// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What each counter of CG_COUNTERS (include/cgsched.h, figures/snapshot.h)
 * is called in the outputs: its JSON object and key, its `top` column, its
 * place in record's summary, and its Prometheus series. One row per
 * counter, in the list's order: tests/unit/test_counters.c checks each
 * row's field against its place, and the assertion below the count.
 */
#include <stddef.h>

#include "figures/snapshot.h"

/* C(field, JSON object, JSON key, column title or NULL, in record's summary, metric) */
#define C(field, json, key, column, in_record, metric) \
	{ #field, offsetof(struct cg_counters, field), json, key, column, in_record, metric }
/* M(family, label, flags, help): the counter family "cgsched_<family>", one of its series. */
#define M(family, label, flags, help) { family, label, flags, help }
#define NO_METRIC { 0 }

const struct cg_counter_def cg_counter_defs[] = {
	/* The hot counters (struct cgs_cg_hot). */
	C(oncpu_ns, CGJ_ROW_TIME, "oncpu_ns", NULL, true,
	  M("oncpu_seconds_total", NULL, MX_SEC, "Time the cgroup's tasks ran on a CPU, summed over CPUs (traced)")),
	C(oncpu_count, CGJ_SLICES, "count", NULL, false, NO_METRIC),
	C(wakeups, CGJ_ROW, "wakeups", "WAKEUPS", true,
	  M("wakeups_total", NULL, 0, "Wake-ups of the cgroup's tasks (sched_wakeup, sched_wakeup_new)")),
	C(sw_vol, CGJ_SWITCHES, "voluntary", "SW_VOL", true,
	  M("switches_total", "kind=\"voluntary\"", 0, "Context switches away from the cgroup's tasks: "
	    "voluntary (blocked) or involuntary (preempted, still runnable)")),
	C(sw_invol, CGJ_SWITCHES, "involuntary", "SW_INV", true, M("switches_total", "kind=\"involuntary\"", 0, NULL)),
	/* The run-queue waits' count and sum: the latency histogram's _count and _sum. */
	C(runq_count, CGJ_RUNQ, "count", NULL, true, NO_METRIC),
	C(runq_sum_ns, CGJ_RUNQ, "sum_ns", NULL, true, NO_METRIC),
	/* The shard counters (struct cgs_cg_shard). */
	C(thr_wait_count, CGJ_THR_WAIT, "wait_count", NULL, false, NO_METRIC),
	C(thr_wait_ns, CGJ_THR_WAIT, "wait_ns", NULL, true,
	  M("wait_seconds_total", "cause=\"own_quota\"", MX_SEC | MX_OWNQ, "Time the cgroup's tasks waited, "
	    "summed over tasks, by what they waited behind: its own or an ancestor's quota (throttled), "
	    "or what ran on the CPU meanwhile")),
	C(thr_inh_ns, CGJ_THR_WAIT, "inherited_ns", NULL, true,
	  M("wait_seconds_total", "cause=\"ancestor_quota\"", MX_SEC, NULL)),
	/* Why waits lasted: what ran on the CPU meanwhile (export's default, --why; docs/design.md). */
	C(wb_same_ns, CGJ_WHY, "same_cgroup_ns", NULL, true,
	  M("wait_seconds_total", "cause=\"same_cgroup\"", MX_SEC | MX_SPLIT, NULL)),
	C(wb_other_ns, CGJ_WHY, "other_cgroups_ns", NULL, true,
	  M("wait_seconds_total", "cause=\"other_cgroups\"", MX_SEC | MX_SPLIT, NULL)),
	C(wb_kthread_ns, CGJ_WHY, "kernel_threads_ns", NULL, true,
	  M("wait_seconds_total", "cause=\"kernel_threads\"", MX_SEC | MX_SPLIT, NULL)),
	C(wb_rt_ns, CGJ_WHY, "realtime_ns", NULL, true,
	  M("wait_seconds_total", "cause=\"realtime\"", MX_SEC | MX_SPLIT, NULL)),
	C(wb_idle_ns, CGJ_WHY, "idle_cpu_ns", NULL, true,
	  M("wait_seconds_total", "cause=\"idle_cpu\"", MX_SEC | MX_SPLIT, NULL)),
	C(wb_unknown_ns, CGJ_WHY, "unattributed_ns", NULL, true,
	  M("wait_seconds_total", "cause=\"unattributed\"", MX_SEC | MX_SPLIT, NULL)),
	C(some_ns, CGJ_WHY, "some_ns", NULL, true,
	  M("waiting_seconds_total", NULL, MX_SEC | MX_WHY, "Wall time with at least one task of the cgroup "
	    "waiting for a CPU (--why; cgsched's PSI \"some\")")),
	/* From the throttle map (CG_THR_COUNTERS). */
	C(thr_count, CGJ_THR, "count", NULL, true,
	  M("throttle_episodes_total", NULL, MX_LIM, "Throttle episodes of the cgroup's own quota, "
	    "counted per CPU as cpu.stat counts time")),
	C(thr_ns, CGJ_THR, "ns", NULL, true,
	  M("throttled_seconds_total", NULL, MX_SEC | MX_LIM, "Time the cgroup's run queues were "
	    "throttled by its own quota, summed over CPUs (traced; the kernel's is "
	    "cgsched_cpu_stat_throttled_seconds_total)")),
};
_Static_assert(sizeof(cg_counter_defs) / sizeof(cg_counter_defs[0]) == CG_NCOUNTERS,
	       "cg_counter_defs: one row for each counter of CG_COUNTERS");
