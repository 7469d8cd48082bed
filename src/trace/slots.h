/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The life cycle of cgroup slots, on the loader's side. A slot is an index
 * into the BPF side's per-cgroup arrays (cg_hot, cg_shard). The BPF side
 * gives a cgroup a slot from the free queue at its first event (sched.bpf.c
 * slot_of), and reports its removal (cg_rmdir).
 *
 * The loader gives slots back to the free queue: those of removed cgroups,
 * and those of long-idle cgroups when slots run short. It first copies
 * their figures here ("parked"), so totals neither drop nor count twice.
 * A removed cgroup's figures stay a while, so every reader sees its last
 * figures before they go. See docs/design.md, "Slots".
 */
#ifndef CGS_SLOTS_H
#define CGS_SLOTS_H

#include <stdbool.h>
#include <stdint.h>
#include "cgsched.h"
#include "trace/mapwin.h"

/* Parked figures hold at most max(--max-cgroups, this) cgroups' worth. */
#define SLOTS_PARKED_MIN 1024
/* How long to wait for the removal record of a cgroup found gone before it was named (await_removals). */
#define SLOTS_RMDIR_WAIT_MS 100

/*
 * The figures of a cgroup whose slot was taken back. They are folded into
 * one record, or kept per CPU with the per-CPU view (one shard per CPU).
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
	int fd_rcu_outer, fd_rcu_inner;  /* rcu_sync and its inner map: slots_wait_programs' fallback */
	uint32_t *gen;              /* the BPF side's slot_gen (mmapped .bss) */
	uint64_t *bowner;           /* the BPF side's slot_owner, mmapped */
	size_t bowner_len;
	/* cg_hot and cg_shard, mmapped read-write (zeroed before reuse) */
	struct cgs_cg_hot *hot;     /* CPU c's of slot s at hot[c * max + s] */
	struct cgs_cg_shard *shard; /* shard k's of slot s at shard[k * max + s] */
	struct mapwin *hotw, *shardw; /* their mappings: covered up to nslots (mapwin.h) */
	/* export's demand steps (per_steps.h), mmapped the same way; NULL: not kept */
	struct cgs_per *per;
	struct mapwin *perw;
	uint64_t per_lost;          /* its slots' step ranges lost (CGS_DROP_PER_LOST) */
	int nshards;
	bool per_cpu;               /* the per-CPU view: parked figures kept per CPU */
	/* Which cgroup each slot holds, once seen in slot_owner; 0: none. */
	uint64_t *owner;
	uint32_t nslots;            /* slots up to the highest owned + 1 */
	/* Each owned slot's place in cgroup-id order (0..nowned-1): snapshots come out sorted. */
	uint32_t *rank;
	uint32_t nowned;
	/* Per slot: the refresh that decided to take it back (0: none), and its time. */
	uint64_t *retire_read, *retire_ns;
	/* Slots taken back that the free queue refused; retried each refresh. */
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
	/* Per slot: its event counts' sum when last sampled, and since when that sum is unchanged. */
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
	 * Callbacks to the names layer. It hears of each cgroup given a slot,
	 * while the cgroup most likely still exists. It hears of each removed
	 * cgroup, with the path the kernel gave. It hears when a cgroup's
	 * figures are dropped. The names layer belongs to the readers, so the
	 * calls happen only during snapshot reads. Between reads, forgets wait
	 * in pending_forget and the rest in note and parked.
	 */
	/* on_learn returns false if the cgroup is already gone; its removal record then gives the name. */
	bool (*on_learn)(void *ctx, uint64_t id);
	void (*on_removed)(void *ctx, uint64_t id, const char *path);
	void (*on_forget)(void *ctx, uint64_t id);
	void *names_ctx;
	uint64_t *pending_forget;
	size_t npending, pending_cap;
	/*
	 * Removed cgroups that had no slot (outside --cgroup, or no slot free)
	 * but may be named as preemptors. Their preemption pairs are deleted
	 * two snapshot reads after the removal. At most SLOTS_SLOTLESS_MAX wait.
	 */
	struct slotless { uint64_t id, snap; } *slotless;
	size_t nslotless, slotless_cap;
};
#define SLOTS_SLOTLESS_MAX 16384

/* Push every slot onto the BPF side's free queue, after load and before attach. 0 or -errno. */
int slots_fill(int fd_free, uint32_t max);
/* After attach, map slot_owner and allocate the tables. 0, or -errno after printing why. */
int slots_init(struct slot_table *sl);
/*
 * Call at each snapshot read and between reads. It learns new slot owners
 * and takes in removed cgroups. It takes back the slots that an earlier
 * read chose, parking their figures. It drops the figures of cgroups
 * removed long enough ago. Returns 0 or -ENOMEM.
 */
int slots_refresh(struct slot_table *sl, uint64_t now, bool snapshot);
/* Wait until no BPF program that began before this call still runs. */
void slots_wait_programs(struct slot_table *sl);
void slots_free(struct slot_table *sl);

/* Records per parked cgroup: one per CPU with the per-CPU view, else one. */
int slots_park_units(const struct slot_table *sl);

#endif
