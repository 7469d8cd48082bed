// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched watch's incidents on disk (incident.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/util.h"
#include "watch/incident.h"

#define TMP_TAG ".new-"

static int mkdir_p(const char *dir)
{
	char p[4096];
	size_t n = strlen(dir);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (char *c = p + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		*c = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* The files of remove_at's directory removed: 0, or -errno (-ENOENT: there is none). */
static int empty_at(int dfd, const char *name)
{
	DIR *dd = dir_open_at(dfd, name, O_NOFOLLOW);
	struct dirent *e;

	if (!dd)
		return -errno;
	while ((e = readdir(dd))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		unlinkat(dirfd(dd), e->d_name, 0);
	}
	closedir(dd);
	return 0;
}

/*
 * An incident's directory at name in dfd, and its files (no deeper: an
 * incident has none). Opened with O_NOFOLLOW: a symlink or a file at the
 * name is left alone (-ELOOP, -ENOTDIR), and so is what it points to.
 * Everything is removed relative to that descriptor, never by a path.
 */
static int remove_at(int dfd, const char *name)
{
	int err = empty_at(dfd, name);

	if (err)
		return err == -ENOENT ? 0 : err;
	return unlinkat(dfd, name, AT_REMOVEDIR) ? -errno : 0;
}

/* A new stream over DIR's entries (a dup would share its offset: a second listing would find none). */
static DIR *list_at(int dfd, const char *path)
{
	return dfd >= 0 ? dir_open_at(dfd, ".", 0) : dir_open_at(AT_FDCWD, path, 0);
}

/* A real directory, not a symlink to one. */
static bool is_dir_at(DIR *dd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return !fstatat(dirfd(dd), e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
}

int incident_dir_open(struct incident_dir *d, const char *dir, unsigned max, const char **why)
{
	DIR *dd;
	struct dirent *e;
	struct stat st;
	int err, fd = -1;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->max = max;
	if ((err = mkdir_p(dir))) {
		*why = "cannot make it";
		return err;
	}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fstat(fd, &st)) {
		err = -errno;
		*why = "cannot open it";
		goto fail;
	}
	/*
	 * watch removes what it finds there, as root: anyone else who may
	 * write there could plant names for it to remove.
	 */
	if (!stat_ours_alone(&st)) {
		*why = st.st_uid != geteuid() ? INCIDENT_DIR_NOT_OURS : INCIDENT_DIR_WIDE;
		err = -EPERM;
		goto fail;
	}
	if (access(dir, W_OK | X_OK)) {
		err = -errno;
		*why = "cannot write there";
		goto fail;
	}
	if (!(d->dir = strdup(dir))) {
		err = -ENOMEM;
		goto fail;
	}
	d->fd = fd;
	fd = -1;
	/* A killed watch's half-written incidents: hidden, and of no use. */
	if ((dd = list_at(d->fd, d->dir))) {
		while ((e = readdir(dd))) {
			if (e->d_name[0] != '.' || !strstr(e->d_name, TMP_TAG) || !is_dir_at(dd, e))
				continue;
			if (!remove_at(d->fd, e->d_name))
				d->stale++;
		}
		closedir(dd);
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return err;
}

void incident_dir_close(struct incident_dir *d)
{
	if (d->dir && d->fd >= 0)
		close(d->fd);
	free(d->dir);
	d->dir = NULL;
	d->fd = -1;
}

void incident_slug(const char *path, char *out, size_t n)
{
	size_t k = 0;

	if (!path || !strcmp(path, "/") || !*path) {
		snprintf(out, n, "root");
		return;
	}
	for (const char *c = path + (path[0] == '/'); *c && k + 1 < n; c++) {
		char x = *c;
		if (x == '/')
			x = '_';
		else if (!((x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9') || x == '.' ||
			   x == '-' || x == '_' || x == '@' || x == ':'))
			x = '-';
		out[k++] = x;
	}
	out[k] = '\0';
}

int incident_begin(struct incident_dir *d, const char *name, struct incident *in)
{
	struct stat st;

	memset(in, 0, sizeof(*in));
	/* Unique: a second one in the same second gets -2, -3, ... */
	snprintf(in->name, sizeof(in->name), "%s", name);
	for (int i = 2; i < 1000; i++) {
		snprintf(in->path, sizeof(in->path), "%s/%s", d->dir, in->name);
		if (fstatat(d->fd, in->name, &st, AT_SYMLINK_NOFOLLOW))
			break;
		snprintf(in->name, sizeof(in->name), "%.150s-%d", name, i);
	}
	snprintf(in->tmp, sizeof(in->tmp), "%s/.%s%sXXXXXX", d->dir, in->name, TMP_TAG);
	if (!mkdtemp(in->tmp))
		return -errno;
	in->tmp_name = strrchr(in->tmp, '/') + 1;
	return 0;
}

const char *incident_file(const struct incident *in, const char *file, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", in->tmp, file);
	return buf;
}

int incident_put(const struct incident *in, const char *file, const void *buf, size_t len)
{
	char p[4096 + 64];

	return atomic_file_put(incident_file(in, file, p, sizeof(p)), buf, len, 0644, true);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

size_t incident_list(const struct incident_dir *d, char (*names)[256], size_t max)
{
	DIR *dd = list_at(d->fd, d->dir);
	struct dirent *e;
	size_t n = 0;

	if (!dd)
		return 0;
	/* Real directories only: a symlink or a file at such a name is no incident, and is never removed. */
	while ((e = readdir(dd)) && n < max) {
		if (e->d_name[0] == '.' || !is_dir_at(dd, e))
			continue;
		snprintf(names[n++], 256, "%s", e->d_name);
	}
	closedir(dd);
	qsort(names, n, 256, cmp_name);
	return n;
}

/* Within the bound: the oldest go. */
static void bound(struct incident_dir *d)
{
	size_t cap = (size_t)d->max + 64, n;
	char (*names)[256] = malloc(cap * 256);

	if (!names)
		return;
	n = incident_list(d, names, cap);
	for (size_t i = 0; n > d->max && i < n - d->max; i++)
		if (!remove_at(d->fd, names[i]))
			d->removed++;
	free(names);
	fsync(d->fd);
}

int incident_end(struct incident_dir *d, struct incident *in, bool keep)
{
	int err = 0;

	if (keep) {
		int fd = openat(d->fd, in->tmp_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
		if (renameat(d->fd, in->tmp_name, d->fd, in->name))
			err = -errno;
	}
	if (!keep || err) {
		remove_at(d->fd, in->tmp_name);
		d->failed++;
		return err;
	}
	fsync(d->fd);
	d->written++;
	bound(d);
	return 0;
}
