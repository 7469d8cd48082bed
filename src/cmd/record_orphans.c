// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cmd/record_orphans.h"
#include "kernel/cgroupfs.h"
#include "lib/util.h"

#define PREFIX "cgsched-record-"

int record_claim(struct cgfs *fs, const char *rel)
{
	int fd = openat(fs->mnt_fd, rel[0] == '/' ? rel + 1 : rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	/* Not inherited by CMD: O_CLOEXEC closes it at exec, so the lock ends with record alone. */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

/* Processes in a cgroup and below. */
static int count_one(void *ctx, const char *rel, uint64_t id)
{
	struct { struct cgfs *fs; int n; } *c = ctx;
	char buf[4096];
	int n = cgfs_read(c->fs, rel, "cgroup.procs", buf, sizeof(buf));

	for (int i = 0; i < n; i++)
		c->n += buf[i] == '\n';
	/* A full buffer: at least that many, enough to know it is not empty. */
	return 0;
}

/* The record that made it is gone: no process has its pid (or we have it: not that record). */
static bool owner_gone(long pid)
{
	return pid == getpid() || (kill(pid, 0) && errno == ESRCH);
}

int record_orphans(struct cgfs *fs, bool end_them)
{
	DIR *d = dir_open_at(fs->mnt_fd, ".", 0);
	struct dirent *de;
	int left = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char rel[NAME_MAX + 2];
		uint64_t pid;
		int fd, err;
		if (strncmp(de->d_name, PREFIX, strlen(PREFIX)) ||
		    parse_u64(de->d_name + strlen(PREFIX), 1, 4194304, &pid) || !owner_gone(pid))
			continue;
		snprintf(rel, sizeof(rel), "/%s", de->d_name);
		/* Held: a record of another pid namespace runs it. Taken: no second cleaner meanwhile. */
		if ((fd = record_claim(fs, rel)) < 0)
			continue;
		struct { struct cgfs *fs; int n; } c = { fs, 0 };
		cgfs_walk(fs, rel, false, count_one, &c);
		if (c.n && !end_them) {
			cgs_warn("%s: left by a record that was killed (pid %llu): %d process%s of its command still "
				 "run%s in it, with its limits; 'cgsched record --cleanup' ends them and removes it",
				 rel, (unsigned long long)pid, c.n, c.n == 1 ? "" : "es", c.n == 1 ? "s" : "");
			left++;
		} else if ((err = cgfs_remove(fs, rel))) {
			cgs_warn("%s: left by a record that was killed (pid %llu); cannot remove it: %s", rel,
				 (unsigned long long)pid, strerror(-err));
			left++;
		} else if (c.n) {
			fprintf(stderr, "cgsched: %s: left by a record that was killed (pid %llu): ended %d process%s still "
				"in it, removed\n", rel, (unsigned long long)pid, c.n, c.n == 1 ? "" : "es");
		} else {
			fprintf(stderr, "cgsched: %s: left empty by a record that was killed (pid %llu): removed\n", rel,
				(unsigned long long)pid);
		}
		close(fd);
	}
	closedir(d);
	return left;
}
