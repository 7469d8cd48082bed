/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The tracer's state and settings, shared by its parts (tracer.c, attach.c, seed.c, episodes.c). */
#ifndef CGS_TRACER_STATE_H
#define CGS_TRACER_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include "cgsched.h"
#include "trace/mapwin.h"
#include "trace/slots.h"

struct sched_bpf;
struct bpf_link;
struct ring_buffer;
struct per_state;

/* Finished throttle episodes collected from the ring buffer, bounded. */
#define CGS_EPISODES_MAX 100000
struct episode_log {
	struct cgs_episode *e;
	size_t n, cap;
	uint64_t truncated;         /* arrived while the log was full */
};

/*
 * A reader of every ring-buffer record as it arrives (--timeline). It sees
 * each episode and each long wait exactly once, including episodes that
 * the bounded log has no room for. This holds whoever takes the episode
 * log, and whenever.
 */
struct tracer_tap {
	void (*episode)(void *ctx, const struct cgs_episode *e);
	void (*wait)(void *ctx, const struct cgs_wait *w);
	void *ctx;
};

/* What to trace, and how: a tracing command's options (session_opts.tc). */
struct trace_cfg {
	uint32_t max_cgroups;       /* --max-cgroups: bound of the per-cgroup map */
	bool hist_ms;               /* histogram slots in ms, not us */
	bool per_cpu;               /* the per-CPU histograms (hist --per-cpu): a shard per CPU, and in every read */
	const char *sched_backend;  /* --sched-backend; NULL: probe */
	const char *thr_backend;    /* --throttle-backend; NULL: probe */
	int tasks;                  /* enum cgs_tasks_mode: per-task figures (top --tasks, hist --per-task) */
	uint32_t max_task_rows;     /* --max-tasks: bound of the per-task figures */
	bool tasks_one;             /* with tasks: only one cgroup's at a time (top's screen, tracer_tasks_follow) */
	bool why;                   /* --why: split each wait into its causes (top, record) */
	bool causes;                /* without --why: the split by what ran alone (export --causes, CGS_WHY_SPLIT) */
	bool demand;                /* record --demand: keep demand steps (trace/demand_steps.h) */
	bool per;                   /* export: keep every cgroup's demand steps (trace/per_steps.h) */
	uint64_t long_wait_ns;      /* --timeline: send waits at least this long one by one; 0: none */
	/*
	 * How long removed cgroups' figures are kept. 0 means a minute.
	 * UINT64_MAX means to the end, for a summary since start such as
	 * record's. An exporter keeps them for its --grace.
	 */
	uint64_t keep_removed_ns;
};

struct tracer_opts {
	const struct trace_cfg *cfg;
	uint32_t max_tasks;         /* bound of the pid-keyed fallback */
	const uint64_t *filter_ids; /* --cgroup ids (with descendants) */
	int nfilter;
	/* Told of cgroups given slots, removed, and let go (slots.h); each may be NULL. */
	bool (*on_learn)(void *ctx, uint64_t id);
	void (*on_removed)(void *ctx, uint64_t id, const char *path);
	void (*on_forget)(void *ctx, uint64_t id);
	/*
	 * At each snapshot read, after on_removed: whether every removal since
	 * start has been told (cgroup_rmdir hooked, none lost); may be NULL.
	 */
	void (*on_removals_told)(void *ctx, bool all);
	void *names_ctx;
	/* Non-zero when a stop was asked for: start-up gives up with -EINTR. */
	const volatile int *stop;
};

/*
 * The links attached by hand: each kprobe program on every clone of its
 * function that kallsyms lists (at most TRACER_KPROBE_SYMS each), and the
 * two cgroup hooks.
 */
#define TRACER_KPROBE_SYMS 4
#define TRACER_KPROBE_PROGS 3
#define TRACER_CGROUP_HOOKS 2
#define TRACER_LINKS (TRACER_KPROBE_PROGS * TRACER_KPROBE_SYMS + TRACER_CGROUP_HOOKS)

struct tracer {
	struct sched_bpf *skel;
	const char *backend;        /* "tp_btf" or "raw_tp" */
	const char *thr_backend;    /* "fentry", "kprobe" or "tracepoint" */
	struct bpf_link *links[TRACER_LINKS]; /* kprobes and the cgroup hooks, attached by hand */
	int nlinks;
	bool rmdir_hooked;          /* cgroup_rmdir is traced: removals are told (slots.h) */
	void (*on_removals_told)(void *ctx, bool all);
	void *names_ctx;
	bool task_storage;          /* else LRU hash by pid */
	int ncpus;
	int fd_hot, fd_shard, fd_preempt, fd_cur, fd_drops, fd_thr;
	int fd_tasks;               /* per-task figures; -1: not asked for */
	uint32_t max_task_rows;
	uint32_t max_cgroups, max_preempt;
	bool why;                   /* --why: the BPF side keeps waiting counts */
	int why_parts;              /* its parts (enum cgs_why_part; CGS_WHY_PARTS) */
	/* cg_hot, mapped for the slots in use (mapwin.h). CPU c's figures of slot s: hot[c * max_cgroups + s] */
	struct cgs_cg_hot *hot;
	struct mapwin hotw;
	/*
	 * cg_shard, mapped the same way. A shard is one copy of the bulk of a
	 * cgroup's figures: each CPU writes its own, or CPUs share a few with
	 * atomic adds (attach.c shards_for). Shard k's figures of slot s are at
	 * shard[k * max_cgroups + s].
	 */
	struct cgs_cg_shard *shard;
	struct mapwin shardw;
	int nshards;
	/* Which cgroup each slot holds, recycling, parked figures (slots.h). */
	struct slot_table sl;
	/* Held from tracer_begin_read to tracer_end_read, and by tracer_maintain: sl changes under it. */
	pthread_mutex_t read_lock;
	uint64_t refreshed_ns;      /* the last slots_refresh */
	uint64_t attached_ns;       /* monotonic time the trace's window begins (session.c: its baseline read) */
	const char *seed;           /* how the CPUs were told what runs at attach: "ipi" or "nudge" */
	uint64_t moves_synced;      /* moves_elsewhere (sched.bpf.c) when the CPUs were last told */
	struct ring_buffer *rb;
	struct episode_log log;
	struct tracer_tap tap;
	struct per_state *per;      /* export's demand steps (per_steps.h); NULL: not kept */
};

/* Cgroups with a throttle episode still to come (tracer_pending), sorted. */
struct cg_pending {
	uint64_t *id;
	size_t n, cap;
};

#endif
