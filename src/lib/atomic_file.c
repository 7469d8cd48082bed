// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"

/* path's directory ("." for a bare name, "/" for one in the root) and its last part. */
static void split(const char *path, char *dir, size_t dlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dlen, ".");
		*base = path;
	} else {
		snprintf(dir, dlen, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		*base = slash + 1;
	}
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

int atomic_file_open(struct atomic_file *f, const char *path, mode_t mode, bool sync)
{
	char dir[PATH_MAX];
	const char *base;
	int err;

	*f = (struct atomic_file){ .fd = -1, .sync = sync };
	split(path, dir, sizeof(dir), &base);
	if (!(f->path = strdup(path)) || asprintf(&f->tmp, "%s/.%s" ATOMIC_FILE_TAG "XXXXXX", dir, base) < 0) {
		f->tmp = NULL; /* undefined after a failed asprintf */
		err = -ENOMEM;
		goto fail;
	}
	if ((f->fd = mkostemp(f->tmp, O_CLOEXEC)) < 0 || (mode && fchmod(f->fd, mode))) {
		err = -errno;
		goto fail;
	}
	return 0;
fail:
	/* Removes the temporary file if made, and frees the names: f is empty again. */
	atomic_file_close(f, false);
	return err;
}

int atomic_file_check(const char *path)
{
	struct atomic_file f;
	int err = atomic_file_open(&f, path, 0, false);

	if (!err)
		atomic_file_close(&f, false);
	return err;
}

int atomic_file_write(struct atomic_file *f, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(f->fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= w;
	}
	return 0;
}

int atomic_file_close(struct atomic_file *f, bool keep)
{
	char dir[PATH_MAX];
	const char *base;
	int err = 0;

	if (f->fd >= 0) {
		if (keep && f->sync && fsync(f->fd))
			err = -errno;
		if (close(f->fd) && keep && !err)
			err = -errno;
	}
	if (keep && !err && f->fd >= 0 && rename(f->tmp, f->path))
		err = -errno;
	if ((!keep || err) && f->fd >= 0)
		unlink(f->tmp);
	if (keep && !err && f->sync) {
		split(f->path, dir, sizeof(dir), &base);
		err = sync_dir(dir);
	}
	free(f->path);
	free(f->tmp);
	*f = (struct atomic_file){ .fd = -1 };
	return err;
}

int atomic_file_put(const char *path, const void *buf, size_t len, mode_t mode, bool sync)
{
	struct atomic_file f;
	int err = atomic_file_open(&f, path, mode, sync);

	if (err)
		return err;
	err = atomic_file_write(&f, buf, len);
	int cerr = atomic_file_close(&f, !err);
	return err ? err : cerr;
}

int atomic_file_remove(const char *path, bool sync)
{
	char dir[PATH_MAX];
	const char *base;

	if (unlink(path))
		return errno == ENOENT ? 0 : -errno;
	split(path, dir, sizeof(dir), &base);
	return sync ? sync_dir(dir) : 0;
}

void atomic_file_clean(const char *path)
{
	char dir[PATH_MAX], prefix[NAME_MAX + 16];
	const char *base;
	DIR *d;
	struct dirent *de;

	split(path, dir, sizeof(dir), &base);
	snprintf(prefix, sizeof(prefix), ".%s" ATOMIC_FILE_TAG, base);
	if (!(d = opendir(dir)))
		return;
	/* mkstemp's six characters after the tag, and nothing else: only such a leftover. */
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)) && strlen(de->d_name) == strlen(prefix) + 6)
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}
