// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cgroupfs.h"
#include "lib/cgname.h"
#include "lib/util.h"
#include "figures/snapshot.h"
#include "report/group.h"
#include "report/report.h"

static const char *const names[] = {
	[GROUP_PATH] = "path", [GROUP_UNIT] = "unit", [GROUP_CONTAINER] = "container", [GROUP_POD] = "pod",
};

int group_by_parse(const char *s, enum group_by *g)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*g = i;
			return 0;
		}
	return -1;
}

const char *group_by_name(enum group_by g)
{
	return names[g];
}

/* What groups a cgroup: its pod's UID, its container's id or its unit; NULL for none. */
static const char *key_of(const struct cgname *n, enum group_by by)
{
	const char *k = NULL;

	if (!n)
		return NULL;
	switch (by) {
	case GROUP_POD: k = n->pod_uid; break;
	case GROUP_CONTAINER: k = n->container; break;
	case GROUP_UNIT: k = n->unit; break;
	case GROUP_PATH: break;
	}
	return k && *k ? k : NULL;
}

/* A cgroup of some group, while sorting them into groups. */
struct keyed {
	const char *key, *path;
	uint64_t id;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The length of the common ancestor of path p[0..len) and q, whole components only ("/" is 1). */
static size_t common_len(const char *p, size_t len, const char *q)
{
	size_t i = 0, last = 1;

	while (i < len && q[i] && p[i] == q[i]) {
		i++;
		if (p[i - 1] == '/' && i > 1)
			last = i - 1;
	}
	if (i == len && (q[i] == '/' || !q[i]))
		return len;
	return last;
}

static uint64_t member_group(void *ctx, uint64_t id)
{
	const struct groups *gs = ctx;
	const struct group_member *m = bsearch(&id, gs->m, gs->nm, sizeof(*gs->m), cmp_id);

	return m ? m->gid : id;
}

/* A run of one key, k[0..n) (sorted by id): a group. */
static int group_add(struct groups *gs, struct cgfs *fs, const struct keyed *k, size_t n)
{
	struct group *g = &gs->g[gs->n];
	size_t len = strlen(k[0].path);
	uint64_t aid;

	for (size_t i = 1; i < n; i++)
		len = common_len(k[0].path, len, k[i].path);
	/* Up to the outermost cgroup of the same group: a pod of one container is its pod's slice. */
	while (len > 1) {
		struct cgname up;
		const char *slash = memrchr(k[0].path, '/', len);
		size_t plen = slash && slash > k[0].path ? (size_t)(slash - k[0].path) : 1;
		char *parent = strndup(k[0].path, plen);
		const char *key;
		if (!parent)
			return -ENOMEM;
		cgname_decode(parent, &up);
		key = key_of(&up, gs->by);
		free(parent);
		if (!key || strcmp(key, k[0].key))
			break;
		len = plen;
	}
	if (!(g->path = strndup(k[0].path, len)))
		return -ENOMEM;
	g->members = n;
	g->id = k[0].id;
	/* The ancestor is the group's own cgroup when its path says the same (a pod's slice). */
	if (!cgfs_id(fs, g->path, &aid)) {
		const struct cgname *who = cgfs_who(fs, aid);
		const char *key = key_of(who, gs->by);
		if (key && !strcmp(key, k[0].key)) {
			g->id = aid;
			g->own = true;
		}
	}
	for (size_t i = 0; i < n; i++)
		gs->m[gs->nm++] = (struct group_member){ k[i].id, g->id };
	gs->n++;
	return 0;
}

/* d's cgroups sorted into gs's groups and members (gs->by's): 0 or -ENOMEM. */
static int groups_fill(struct groups *gs, const struct snapshot *d, struct cgfs *fs)
{
	struct keyed *k = malloc((d->n ? d->n : 1) * sizeof(*k));
	size_t nk = 0;
	int err = 0;

	gs->g = calloc(d->n ? d->n : 1, sizeof(*gs->g));
	gs->m = calloc(d->n ? d->n : 1, sizeof(*gs->m));
	if (!k || !gs->g || !gs->m) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < d->n; i++) {
		uint64_t id = d->cg[i].id;
		const char *last, *path = cgfs_path(fs, id, false, &last);
		const char *key = key_of(cgfs_who(fs, id), gs->by);
		if (!path)
			path = last;
		if (key && path)
			k[nk++] = (struct keyed){ key, path, id };
	}
	qsort(k, nk, sizeof(*k), cmp_keyed);
	for (size_t i = 0, j; i < nk && !err; i = j) {
		for (j = i + 1; j < nk && !strcmp(k[j].key, k[i].key); j++)
			;
		err = group_add(gs, fs, k + i, j - i);
	}
out:
	free(k);
	return err;
}

int groups_make(struct groups *gs, enum group_by by, const struct snapshot *d, struct cgfs *fs,
		struct snapshot *out)
{
	int err;

	memset(gs, 0, sizeof(*gs));
	memset(out, 0, sizeof(*out));
	gs->by = by;
	if ((err = groups_fill(gs, d, fs)))
		goto fail;
	qsort(gs->m, gs->nm, sizeof(*gs->m), cmp_id);
	/* struct group begins with its id: sorted and searched as one. */
	qsort(gs->g, gs->n, sizeof(*gs->g), cmp_id);
	if ((err = snapshot_regroup(d, member_group, gs, out)))
		goto fail;
	return 0;
fail:
	snapshot_free(out);
	groups_free(gs);
	return err;
}

void groups_label(const struct groups *gs, struct report *r)
{
	r->group_by = group_by_name(gs->by);
	for (size_t i = 0; i < r->n; i++) {
		struct row *w = &r->rows[i];
		const struct group *g = bsearch(&w->id, gs->g, gs->n, sizeof(*gs->g), cmp_id);
		if (!g)
			continue;
		w->members = g->members;
		w->path = g->path;
		if (!g->own) {
			/* The id is one member's: its kernel figures are not the group's. */
			memset(&w->k, 0, sizeof(w->k));
			w->k_periods = w->k_throttled = w->k_throttled_ns = w->k_bursts = w->k_burst_ns = 0;
			w->quota_used_pct = -1;
		}
	}
}

void groups_free(struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		free(gs->g[i].path);
	free(gs->g);
	free(gs->m);
	memset(gs, 0, sizeof(*gs));
}
