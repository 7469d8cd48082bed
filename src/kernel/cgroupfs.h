/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The cgroup filesystem of the cpu controller: where it is mounted (v1 or
 * v2), cgroup id <-> path, and the kernel's own statistics.
 */
#ifndef CGS_CGROUPFS_H
#define CGS_CGROUPFS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/idtab.h"

struct cgname;

struct cgfs {
	int version;          /* 1 or 2 */
	char mnt[PATH_MAX];   /* mount point of the hierarchy with the cpu controller */
	int mnt_fd;
	bool handles;         /* open_by_handle_at works: O(1) id -> path */
	struct idtab names;   /* id -> path cache: struct cgfs_name */
	uint64_t scans;       /* full-tree scans done (handle fallback only) */
	/*
	 * Every removal since tracing began has been reported through
	 * cgfs_note_removed (cgroup_rmdir hooked, none lost). A cached path is
	 * then trusted without a stat. A stat per shown row is costly with
	 * many rows, and would only repeat what the tracer already says.
	 */
	bool removals_told;
	/* Cgroups marked removed so far (cgfs_note_removed). If unchanged, no new mark needs looking for. */
	uint64_t nremoved;
};

/* One mountinfo line's fields that matter; returns 0 when it parsed. */
struct mountinfo_ent {
	char root[PATH_MAX];
	char mnt[PATH_MAX];
	char fstype[64];
	char superopts[512];
};
int mountinfo_parse_line(const char *line, struct mountinfo_ent *e);
/* Whether a comma-separated option list holds exactly `opt` ("cpu" is not "cpuset"). */
bool opts_have(const char *opts, const char *opt);
/*
 * Pick the cpu hierarchy from a mountinfo stream. Prefer a v1 "cgroup"
 * mount with the cpu option. Else take a cgroup2 mount whose root lists
 * cpu in cgroup.controllers; `has_cpu` checks that, and tests replace it.
 */
int mountinfo_find_cpu(FILE *mi, int *version, char *mnt, size_t len,
		       bool (*has_cpu)(const char *mnt));

/*
 * Normalise a user's cgroup path to "/a/b" ("/" for the root). The input
 * may be relative to the hierarchy ("/a/b", "a/b", "/") or absolute under
 * the mount point ("/sys/fs/cgroup/cpu/a/b"). Rejects "..", empty names,
 * and paths outside mnt.
 */
int cgpath_normalize(const char *mnt, const char *in, char *out, size_t len);

int cgfs_open(struct cgfs *fs);
/* cgfs_open for commands: on failure, one line saying what to do; returns 0 or CGS_EXIT_USAGE. */
int cgfs_open_or_explain(struct cgfs *fs);
/*
 * For a command about to write limits or make cgroups (cmd is named in the
 * message). Returns 0, or CGS_EXIT_USAGE after one line if the hierarchy
 * is mounted read-only, as a container usually sees it. Call it before
 * anything is shown or written.
 */
int cgfs_writable_or_explain(struct cgfs *fs, const char *cmd);
void cgfs_close(struct cgfs *fs);
/* Id of a normalised path (its kernfs node id = directory inode), or -ENOENT. */
int cgfs_id(struct cgfs *fs, const char *rel, uint64_t *id);
/*
 * Path of an id, relative to the hierarchy, or NULL if the cgroup no
 * longer exists. Then *last gets the last known path, if any. Paths are
 * cached. With check_alive, a cached path is checked again with one stat,
 * unless every removal is reported (removals_told).
 */
const char *cgfs_path(struct cgfs *fs, uint64_t id, bool check_alive, const char **last);
/*
 * Mark the cgroup of id removed. The tracer saw it go, with path as the
 * kernel gave it, or NULL. From now on cgfs_path returns NULL. As the last
 * path it gives the one it knew, or else this one.
 */
void cgfs_note_removed(struct cgfs *fs, uint64_t id, const char *path);
/* Forget what is cached of id (a removed cgroup no one reports any longer). */
void cgfs_forget(struct cgfs *fs, uint64_t id);
/*
 * Look up the path of id now (cgfs_path). Returns false only if its handle
 * no longer opens (it is removed, not merely missed by a scan) and no name
 * came with its removal.
 */
bool cgfs_learn(struct cgfs *fs, uint64_t id);
/* Whether the tracer told the removal of id (cgfs_note_removed): a lookup, no stat. */
bool cgfs_told_removed(struct cgfs *fs, uint64_t id);
/*
 * Who the cgroup of id belongs to, read from its last known path
 * (lib/cgname.h). It is decoded once and cached with the path. NULL if the
 * path says nothing more than itself, or is unknown.
 */
const struct cgname *cgfs_who(struct cgfs *fs, uint64_t id);
/* Read a cgroup file (relative path + name) into buf; returns length or -errno. */
int cgfs_read(struct cgfs *fs, const char *rel, const char *file, char *buf, size_t len);
/* Write a value to a cgroup file; 0 or -errno. */
int cgfs_write(struct cgfs *fs, const char *rel, const char *file, const char *value);
/* Make a cgroup (rel normalised); 0 or -errno (-EEXIST when it is there). */
int cgfs_mkdir(struct cgfs *fs, const char *rel);
/* Remove one empty cgroup (rmdir): never kills; -EBUSY when tasks are in it. */
int cgfs_rmdir(struct cgfs *fs, const char *rel);
/*
 * v2: give rel's parent's children the cpu controller (cgroup.subtree_control
 * "+cpu") unless they have it; *enabled says whether it was off. v1: nothing.
 */
int cgfs_enable_cpu_in_parent(struct cgfs *fs, const char *rel, bool *enabled);
/* The parent of a normalised path ("/a/b" -> "/a", "/a" -> "/"). */
void cgpath_parent(const char *rel, char *out, size_t len);
/*
 * Call cb(ctx, rel, id) for the cgroup `below` (a normalised path) and
 * every one under it: parents first, or children first with post_order.
 * Links are not followed, and other mounts are not entered. A nonzero
 * return of cb ends the walk and is returned. Returns -errno if `below`
 * cannot be opened.
 */
int cgfs_walk(struct cgfs *fs, const char *below, bool post_order,
	      int (*cb)(void *ctx, const char *rel, uint64_t id), void *ctx);
/* Kill what is left in a cgroup and its descendants, then remove them, deepest first. */
int cgfs_remove(struct cgfs *fs, const char *rel);
/* This process's cgroup in the cpu hierarchy (from /proc/self/cgroup), "/" if unknown. */
void cgfs_self(struct cgfs *fs, char *out, size_t len);
/* Read one "key value" line's value from a flat keyed file such as cpu.stat. */
int keyed_get(const char *text, const char *key, uint64_t *val);

#endif
