/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The cgroup slots' life cycle, on the loader's side (the BPF side:
 * sched.bpf.c slot_of, on_rmdir). Slots of removed cgroups, and of cgroups
 * idle for long when slots run short, go back to the BPF side's free queue;
 * their figures are kept here ("parked"), so totals neither drop nor count
 * twice, and a removed cgroup's are kept a while so every reader sees its
 * last figures before it leaves. docs/design.md, "Slots".
 */
#ifndef CGS_SLOTS_H
#define CGS_SLOTS_H

#include <stdbool.h>
#include <stdint.h>
#include "cgsched.h"
#include "trace/mapwin.h"

/* Parked figures are bounded by --max-cgroups cgroups' worth, or this many if more. */
#define SLOTS_PARKED_MIN 1024
/* A removal's record, waited for when a cgroup given a slot was found gone unnamed (slots.c await_removals). */
#define SLOTS_RMDIR_WAIT_MS 100

/*
 * The figures of a cgroup whose slot was taken back, folded: one record,
 * or each CPU's with the per-CPU view (a shard per CPU then).
 */
struct parked {
	uint64_t id;
	struct cgs_cg_stats *v;  /* [nv]: CPU c's figures in v[c % nv] */
	int nv;                  /* 1, or ncpus with the per-CPU view */
	bool gone;               /* the cgroup was removed */
	char *path;              /* its path, as cgroup_rmdir gave it; NULL: none */
	bool noted;              /* on_removed told */
	bool named;              /* on_learn or on_removed told: a name may be cached (on_forget due) */
	uint64_t parked_read;    /* the refresh that parked it */
	uint64_t parked_snap;    /* snapshot reads before it was parked */
	uint64_t gone_ns;        /* monotonic time it was seen removed */
};

struct slot_table {
	uint32_t max;               /* --max-cgroups */
	int ncpus;
	int fd_free, fd_gone, fd_slot, fd_owner, fd_thr, fd_preempt, fd_cur, fd_thr_last, fd_thr_opened;
	int fd_rcu_outer, fd_rcu_inner;  /* rcu_sync and its inner map: wait_programs' fallback */
	uint32_t *gen;              /* the BPF side's slot_gen (mmapped .bss) */
	uint64_t *bowner;           /* the BPF side's slot_owner, mmapped */
	size_t bowner_len;
	/* cg_hot and cg_shard, mmapped read-write (zeroed before reuse) */
	struct cgs_cg_hot *hot;     /* CPU c's of slot s at hot[c * max + s] */
	struct cgs_cg_shard *shard; /* shard k's of slot s at shard[k * max + s] */
	struct mapwin *hotw, *shardw; /* their mappings: covered up to nslots (mapwin.h) */
	int nshards;
	bool per_cpu;               /* the per-CPU view: parked figures kept per CPU */
	/* Which cgroup each slot holds, once seen in slot_owner; 0: none. */
	uint64_t *owner;
	uint32_t nslots;            /* slots up to the highest owned + 1 */
	/* Each owned slot's place in cgroup-id order (0..nowned-1): snapshots come out sorted. */
	uint32_t *rank;
	uint32_t nowned;
	/* Per slot: the refresh that decided to take it back (0: not), and when. */
	uint64_t *retire_read, *retire_ns;
	/* Slots taken back that the free queue has not taken yet (retried each refresh). */
	uint32_t *unpushed, nunpushed;
	/* Per slot: what the names layer was told of its cgroup, and its removal. */
	struct slot_note {
		bool named;          /* on_learn told */
		bool gone;           /* removed */
		bool noted;          /* on_removed told */
		bool unnamed;        /* on_learn found it gone: its removal record is due */
		char *path;          /* cgroup_rmdir's path; NULL: none */
	} *note;
	uint32_t nretiring;
	/* Per slot: the sum of its event counts when last looked at, and since when it is unchanged. */
	uint64_t *sig, *quiet_since;
	uint64_t sig_ns;            /* when they were last looked at (pick_idle) */
	uint64_t reads;             /* refreshes so far */
	uint64_t snaps;             /* of them, snapshot reads (not tracer_maintain's) */
	struct parked *parked;      /* sorted by id */
	size_t nparked, parked_cap;
	uint64_t parked_lost;       /* parked figures discarded before two reads saw them */
	uint64_t recycled;          /* slots handed back so far */
	uint64_t learnt;       /* slots learnt so far */
	uint64_t idle_ns;           /* idle this long: a slot may be taken back when they run short */
	uint64_t keep_ns;           /* a removed cgroup's figures are kept this long */
	/*
	 * The names layer is told of each cgroup given a slot (while it most
	 * likely still exists), of each removed one (its path as the kernel gave
	 * it), and when one's figures are let go. Only from snapshot reads (the
	 * names layer is the readers'), so between reads they wait: forgets in
	 * pending_forget, the rest in note and parked.
	 */
	/* on_learn: false when the cgroup is gone unnamed (its removal record tells the name). */
	bool (*on_learn)(void *ctx, uint64_t id);
	void (*on_removed)(void *ctx, uint64_t id, const char *path);
	void (*on_forget)(void *ctx, uint64_t id);
	void *names_ctx;
	uint64_t *pending_forget;
	size_t npending, pending_cap;
	/*
	 * Removed cgroups that had no slot (outside --cgroup, or the slots
	 * full) but may be named as preemptors: their preemption pairs go two
	 * snapshot reads after the removal (at most SLOTS_SLOTLESS_MAX waiting).
	 */
	struct slotless { uint64_t id, snap; } *slotless;
	size_t nslotless, slotless_cap;
};
#define SLOTS_SLOTLESS_MAX 16384

/* Hand every slot to the BPF side's free queue: after load, before attach. 0 or -errno. */
int slots_fill(int fd_free, uint32_t max);
/* After attach: map slot_owner, allocate the tables. 0 or -errno (its own error line). */
int slots_init(struct slot_table *sl);
/*
 * At each read (snapshot), and between reads: learn new owners, take in removed cgroups, take back the
 * slots decided at an earlier read (parking their figures), and expire the
 * figures of cgroups removed long enough ago. 0 or -ENOMEM.
 */
int slots_refresh(struct slot_table *sl, uint64_t now, bool snapshot);
void slots_free(struct slot_table *sl);

/* Records a parked cgroup's figures take: one a CPU with the per-CPU view, else one. */
int slots_park_units(const struct slot_table *sl);

#endif
