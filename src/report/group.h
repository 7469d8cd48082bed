/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * top --group-by: sum the cgroups of one systemd unit, container or
 * Kubernetes pod into one row. Their paths say which group they are in
 * (lib/cgname.h). A group's row carries the id and path of the members'
 * common ancestor, if that cgroup is of the same group (a pod's slice, a
 * container's scope). The kernel's figures for it (cpu.stat, quota) are
 * then the whole group's. Cgroups of no group stay rows of their own.
 */
#ifndef CGS_GROUP_H
#define CGS_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgfs;
struct report;
struct snapshot;

enum group_by { GROUP_PATH, GROUP_UNIT, GROUP_CONTAINER, GROUP_POD };

struct group {
	uint64_t id;          /* the common ancestor's, or (not own) the first member's */
	char *path;           /* the members' common ancestor */
	uint32_t members;
	bool own;             /* id is the common ancestor's, which is of the group */
};

struct groups {
	enum group_by by;
	size_t n;
	struct group *g;      /* sorted by id */
	size_t nm;
	struct group_member { uint64_t id, gid; } *m; /* sorted by id */
};

/* "path", "unit", "container", "pod"; -1 for anything else. */
int group_by_parse(const char *s, enum group_by *g);
const char *group_by_name(enum group_by g);
/*
 * Sort d's cgroups into groups (paths through fs) and sum each group's
 * samples into out (snapshot_regroup). 0 or -ENOMEM. After a failure, gs
 * and out are empty again; after success, groups_free and snapshot_free
 * free them.
 */
int groups_make(struct groups *gs, enum group_by by, const struct snapshot *d, struct cgfs *fs,
		struct snapshot *out);
/*
 * Mark r's group rows (built from out) with the member count and the
 * common path. Where the row's id is a member's, not the group's own
 * cgroup, the kernel's figures are dropped.
 */
void groups_label(const struct groups *gs, struct report *r);
void groups_free(struct groups *gs);

#endif
