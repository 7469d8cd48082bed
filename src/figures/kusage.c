// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "figures/kusage.h"
#include "kernel/cgroupfs.h"
#include "lib/util.h"

int kusage_parse_schedstat(const char *text, uint64_t *ns)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || end == text || (*end != ' ' && *end != '\n' && *end))
		return -EINVAL;
	*ns = v;
	return 0;
}

static int add_thread(struct kusage *u, size_t *cap, int tid)
{
	char path[64], buf[128];
	uint64_t ns;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0; /* gone since the list was read: in neither read, or counted as moved */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (kusage_parse_schedstat(buf, &ns))
		return 0;
	if (ARRAY_GROW(u->t, u->n, *cap, 64))
		return -ENOMEM;
	u->t[u->n++] = (struct kusage_thread){ tid, ns };
	return 0;
}

/* list of dirfd opened for reading, or NULL with errno set and nothing left open. */
static FILE *fopen_at(int dirfd, const char *list)
{
	int fd = openat(dirfd, list, O_RDONLY | O_CLOEXEC), err;
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f && fd >= 0) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

/* The threads listed in list of dirfd's cgroup. */
static int read_list(int dirfd, const char *list, struct kusage *u, size_t *cap)
{
	FILE *f = fopen_at(dirfd, list);
	int tid, err = 0;

	if (!f)
		return -errno;
	while (!err && fscanf(f, "%d", &tid) == 1)
		err = add_thread(u, cap, tid);
	fclose(f);
	return err;
}

/* The threads of dirfd's cgroup and of every cgroup below it (depth bounded). */
static int walk_threads(int dirfd, const char *list, struct kusage *u, size_t *cap, int depth)
{
	struct dirent *e;
	DIR *d;
	int err = read_list(dirfd, list, u, cap);

	if (err || depth >= 64)
		return err;
	if (!(d = dir_from_fd(dup(dirfd))))
		return -errno;
	while (!err && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue; /* removed meanwhile */
		err = walk_threads(sub, list, u, cap, depth + 1);
		close(sub);
		if (err == -ENOENT)
			err = 0;
	}
	closedir(d);
	return err;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct kusage_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

int kusage_read(struct cgfs *fs, const char *rel, bool threads, struct kusage *u)
{
	char buf[4096];
	size_t cap = 0;
	uint64_t v;
	int dirfd, err;

	memset(u, 0, sizeof(*u));
	if (fs->version == 2) {
		if ((err = cgfs_read(fs, rel, "cpu.stat", buf, sizeof(buf))) < 0)
			return err;
		if (keyed_get(buf, "usage_usec", &v))
			return -ENOENT;
		u->ns = v * 1000;
		u->source = "cpu.stat";
		return 0;
	}
	/* Only where cpuacct is on this very hierarchy: elsewhere a same-named group may hold other tasks. */
	if ((err = cgfs_read(fs, rel, "cpuacct.usage", buf, sizeof(buf))) >= 0) {
		if (kusage_parse_schedstat(buf, &v))
			return -EINVAL;
		u->ns = v;
		u->source = "cpuacct.usage";
		return 0;
	}
	if (!threads)
		return -ENOENT;
	dirfd = !strcmp(rel, "/") ? dup(fs->mnt_fd) : openat(fs->mnt_fd, rel + 1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	err = walk_threads(dirfd, "tasks", u, &cap, 0);
	close(dirfd);
	if (err)
		goto fail;
	qsort(u->t, u->n, sizeof(*u->t), cmp_tid);
	u->source = "schedstat";
	return 0;
fail:
	kusage_free(u);
	return err;
}

int kusage_delta(const struct kusage *a, const struct kusage *b, uint64_t *ns, unsigned *moved)
{
	size_t i = 0, j = 0;

	*ns = 0;
	*moved = 0;
	if (!a->source || !b->source || strcmp(a->source, b->source))
		return -EINVAL;
	if (strcmp(a->source, "schedstat")) {
		*ns = b->ns > a->ns ? b->ns - a->ns : 0;
		return 0;
	}
	/* Both sorted by tid: a thread in both adds its growth, one in only one is counted. */
	while (i < a->n || j < b->n) {
		if (j == b->n || (i < a->n && a->t[i].tid < b->t[j].tid)) {
			(*moved)++, i++;
		} else if (i == a->n || b->t[j].tid < a->t[i].tid) {
			(*moved)++, j++;
		} else {
			*ns += b->t[j].ns > a->t[i].ns ? b->t[j].ns - a->t[i].ns : 0;
			i++, j++;
		}
	}
	return 0;
}

void kusage_free(struct kusage *u)
{
	free(u->t);
	memset(u, 0, sizeof(*u));
}
