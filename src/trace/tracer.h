/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tracer: load and attach the BPF programs, read their maps, detach on
 * stop. Its parts: attach.h (choosing backends), seed.h (telling CPUs what
 * runs), episodes.h (the ring buffers). This file is the lifecycle and the
 * read lock.
 */
#ifndef CGS_TRACER_H
#define CGS_TRACER_H

#include "trace/tracer_state.h"
#include "trace/attach.h"
#include "trace/episodes.h"
#include "trace/seed.h"

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
	uint64_t per_lost;              /* and CGS_DROP_PER_LOST */
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
 * Recycle the slots of removed cgroups between reads. A loop's idle wait
 * calls it about once a second, so slots come back even when nothing reads
 * for long (record waiting for its command, a slow scraper). Safe to call
 * from another thread than the reads.
 */
void tracer_maintain(struct tracer *t);
/* Checks as tracer_precheck, probes the backends; prints its own error. Returns 0 or -errno. */
int tracer_start(struct tracer *t, const struct tracer_opts *o);
void tracer_stop(struct tracer *t);
/*
 * Make tasks check again whether their hierarchy has a quota (sched.bpf.c
 * tg_limited). Call it every few hundred ms while tracing, so that a quota
 * set after a task was first seen is noticed.
 */
void tracer_recheck_limits(struct tracer *t);
/*
 * Detach every program but keep the maps, so what they hold is final.
 * record does this at its end, then takes the log and the open episodes.
 */
void tracer_detach(struct tracer *t);
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
