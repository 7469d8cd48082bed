/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Open, configure, load and attach the BPF programs; detach on stop. */
#ifndef CGS_TRACER_H
#define CGS_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include "cgsched.h"
#include "trace/mapwin.h"
#include "trace/slots.h"

struct sched_bpf;
struct bpf_link;
struct ring_buffer;

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
	 * atomic adds (tracer.c shards_for). Shard k's figures of slot s are at
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
};

/*
 * What a snapshot reads, as one read sees it (tracer_begin_read): the maps,
 * and which cgroup each slot holds, in cgroup-id order. The tracer
 * owns all of it; a reader only reads.
 */
struct tracer_view {
	uint64_t epoch;                 /* the max epoch just closed */
	int ncpus;
	uint32_t max_cgroups;
	const struct cgs_cg_hot *hot;   /* mmapped: CPU c's hot figures of slot s at hot[c * max_cgroups + s] */
	const struct cgs_cg_shard *shard; /* mmapped: shard k's of slot s at shard[k * max_cgroups + s] */
	int nshards;                    /* shard k is CPU k's own when there are ncpus */
	uint32_t nslots;                /* slots up to the highest named + 1 */
	const uint64_t *owner;          /* slot -> cgroup id; 0: none */
	const uint32_t *rank;           /* slot -> its place in cgroup-id order */
	uint32_t nowned;                /* slots named */
	/* Figures of cgroups whose slots were taken back, sorted by id (slots.h). */
	const struct parked *parked;
	size_t nparked;
	uint64_t parked_lost;           /* drops the loader counted (CGS_DROP_PARKED_LOST) */
	uint64_t prog_missed;           /* runs of the programs the kernel skipped (CGS_DROP_PROG_MISSED) */
	uint64_t recycled;              /* slots taken back so far */
	int fd_thr, fd_preempt, fd_cur, fd_drops;
	int fd_tasks;                   /* -1: no per-task figures */
	bool task_threads;              /* its entries are threads (else processes) */
	uint64_t task_cg;               /* whose tasks it records: a cgroup id, CGS_TASK_CG_ALL, 0 none */
	bool why;                       /* --why: waiting counts in shard 0's entries */
	uint64_t sync_round;            /* the CPUs were asked at this read if their ran_round is this */
};
/*
 * Begin a read. It closes the max epoch, unless close_epoch is false: a
 * reader of the cumulative figures passes false, so that it does not steal
 * the interval maxima from the reader that owns them. It names the slots
 * given out since the last read. It takes back the slots of removed
 * cgroups (and of long-idle ones, when slots run short), parking their
 * figures, and ranks the slots (slots.h). Returns 0 or -ENOMEM.
 */
int tracer_begin_read(struct tracer *t, struct tracer_view *v, bool close_epoch);
/*
 * A view of the drop counters alone (fd_drops, ncpus, parked_lost,
 * prog_missed). It closes no epoch, refreshes no slot and asks no CPU what
 * it runs. It suits a reader of those counters only, such as export's
 * /readyz. End it with tracer_end_read.
 */
void tracer_begin_drops(struct tracer *t, struct tracer_view *v);
/* The view is read: let go of it (after every tracer_begin_read, also a failed one). */
void tracer_end_read(struct tracer *t);
/*
 * Keep a link attached by hand. Returns false, with the link destroyed,
 * when t->links is full: a link beyond it could never be detached.
 */
bool tracer_link_add(struct tracer *t, struct bpf_link *l);
/* Tell every CPU again what it runs, so a switch the kernel did not trace is caught up. */
void tracer_sync_cpus(struct tracer *t);
/*
 * Recycle the slots of removed cgroups between reads. A loop's idle wait
 * calls it about once a second, so slots come back even when nothing reads
 * for long (record waiting for its command, a slow scraper). Safe to call
 * from another thread than the reads.
 */
void tracer_maintain(struct tracer *t);
/*
 * Check what tracing needs before anything is loaded: root and the
 * kernel's BTF. Returns 0, or -errno after printing why. A command that
 * changes something before it traces (record makes a cgroup) calls this
 * first.
 */
int tracer_precheck(void);
/* libbpf's messages on stderr only with -v: for any BPF object loaded (the cgroup iterator too). */
void tracer_libbpf_quiet(void);
/* Forced backends' names (NULL: none forced): 0, or -EINVAL after the one error line. */
int tracer_check_names(const char *sched, const char *thr);
/* Checks as tracer_precheck, probes the backends; prints its own error. Returns 0 or -errno. */
int tracer_start(struct tracer *t, const struct tracer_opts *o);
void tracer_stop(struct tracer *t);
/*
 * Load and attach each backend in turn, then detach; cb gets the kind
 * ("sched" or "throttle"), the backend's name, and 0 or -errno.
 */
int tracer_probe(void (*cb)(void *ctx, const char *kind, const char *name, int err), void *ctx);
/* Why the kernel refused scheduler backend NAME with ERR, in words. */
const char *tracer_sched_hint(const char *name, int err);
/* The hash maps are preallocated: the kernel has no any-context BPF allocator. */
bool tracer_maps_preallocated(void);
/* A refused throttle backend's likely reason, in words. */
const char *tracer_thr_hint(const char *name, int err);
/* Wait up to timeout_ms for episodes (collecting them); returns early on a signal. */
void tracer_poll(struct tracer *t, int timeout_ms);
/*
 * The same, but return at once when fd (>= 0) is readable. With a pidfd,
 * the command's exit ends the wait, not the timeout. So record's window
 * ends when the command does, not up to one poll later.
 */
void tracer_poll_fd(struct tracer *t, int fd, int timeout_ms);
/*
 * Make tasks check again whether their hierarchy has a quota (sched.bpf.c
 * tg_limited). Call it every few hundred ms while tracing, so that a quota
 * set after a task was first seen is noticed.
 */
void tracer_recheck_limits(struct tracer *t);
/* For commands that list no episodes: empty the list (it would fill, then count truncations). */
void tracer_discard_episodes(struct tracer *t);
/* Have tap see every episode and long wait from now (after tracer_start). */
void tracer_set_tap(struct tracer *t, const struct tracer_tap *tap);
/* Hand over the episodes collected so far (the caller frees log->e) and start a new log. */
void tracer_take_episodes(struct tracer *t, struct episode_log *out);
/*
 * Detach every program but keep the maps, so what they hold is final.
 * record does this at its end, then takes the log and the open episodes.
 */
void tracer_detach(struct tracer *t);
/*
 * Return the throttle episodes of cgroup cgid still open (after
 * tracer_detach: open at the detach), each from its start to now (ktime).
 * *out is malloc'd and the caller frees it; *n is the count. The fentry
 * and kprobe backends hold each throttle's start until its unthrottle.
 * The tracepoint backend sees an end only at a later switch, so its open
 * entries may be over; it returns none. Returns 0 or -ENOMEM.
 */
int tracer_open_episodes(struct tracer *t, uint64_t cgid, uint64_t now, struct cgs_episode **out, size_t *n);
/* Cgroups with a throttle episode still to come (tracer_pending), sorted. */
struct cg_pending {
	uint64_t *id;
	size_t n, cap;
};
/*
 * Fill p (its array is reused) with the cgroups whose throttle episode is
 * not in the log yet. With fentry and kprobe, such an episode is open.
 * With the tracepoint backend, it is not yet seen over; a later switch
 * sees it. The ring buffer is read after the walk, so every episode is
 * either in the log (and the tap) or here. A run of throttled periods must
 * not be closed while its cgroup has a pending episode: an episode held
 * over refills arrives only at its end (report/periods.h
 * period_track_close). Returns 0, or -ENOMEM with p empty.
 */
int tracer_pending(struct tracer *t, struct cg_pending *p);
bool cg_pending_has(const struct cg_pending *p, uint64_t id);
void cg_pending_free(struct cg_pending *p);
/*
 * cb(name, run time, runs) for each loaded BPF program, from the kernel's
 * bpf stats (zero unless kernel.bpf_stats_enabled is on). 0 or -ENOENT.
 */
int tracer_prog_stats(struct tracer *t, void (*cb)(void *ctx, const char *name, uint64_t run_ns, uint64_t runs),
		      void *ctx);
/*
 * With tasks_one, record the per-task figures of cgroup id from now on,
 * and forget those recorded before. id 0 means none, CGS_TASK_CG_ALL all.
 * The first interval read after this covers only part of the interval.
 */
void tracer_tasks_follow(struct tracer *t, uint64_t id);
/* Bytes of map memory the loaded maps may take at most. */
uint64_t tracer_map_bytes(const struct tracer *t);

#endif
