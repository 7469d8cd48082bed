/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Choose the backends and attach (attach.c). Each fallback is tried by
 * loading and attaching it, in the order of the tables in attach.c.
 */
#ifndef CGS_ATTACH_H
#define CGS_ATTACH_H

#include "trace/tracer_state.h"

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
/*
 * Keep a link attached by hand. Returns false, with the link destroyed,
 * when t->links is full: a link beyond it could never be detached.
 */
bool tracer_link_add(struct tracer *t, struct bpf_link *l);
/*
 * Count the CPUs, size the maps, and load and attach the first backend
 * pair the kernel takes (or the ones forced). Returns 0, or -errno after
 * the one error line. On failure nothing is left loaded.
 */
int attach_start(struct tracer *t, const struct tracer_opts *o);
/* Destroy the links attached by hand (t->links). */
void attach_links_destroy(struct tracer *t);
/* Destroy the links and the skeleton: every program detached, every map freed. */
void attach_release(struct tracer *t);
/* The bytes of cg_hot and of cg_shard for these sizes. */
uint64_t cg_hot_bytes(int ncpus, uint32_t max_cgroups);
uint64_t cg_shard_bytes(int nshards, uint32_t max_cgroups);

#endif
