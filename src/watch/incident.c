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

/* An incident's directory and its files (no deeper: an incident has none). */
static int remove_dir(const char *path)
{
	DIR *dd = opendir(path);
	struct dirent *e;
	char f[4096 + 256];

	if (!dd)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(dd))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(f, sizeof(f), "%s/%s", path, e->d_name);
		unlink(f);
	}
	closedir(dd);
	return rmdir(path) ? -errno : 0;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int incident_dir_open(struct incident_dir *d, const char *dir, unsigned max, const char **why)
{
	DIR *dd;
	struct dirent *e;
	char p[4096 + 256];
	int err;

	memset(d, 0, sizeof(*d));
	d->max = max;
	if ((err = mkdir_p(dir))) {
		*why = "cannot make it";
		return err;
	}
	if (access(dir, W_OK | X_OK)) {
		*why = "cannot write there";
		return -errno;
	}
	if (!(d->dir = strdup(dir)))
		return -ENOMEM;
	/* A killed watch's half-written incidents: hidden, and of no use. */
	if ((dd = opendir(dir))) {
		while ((e = readdir(dd))) {
			if (e->d_name[0] != '.' || !strstr(e->d_name, TMP_TAG))
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			if (!remove_dir(p))
				d->stale++;
		}
		closedir(dd);
	}
	return 0;
}

void incident_dir_close(struct incident_dir *d)
{
	free(d->dir);
	d->dir = NULL;
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
		if (lstat(in->path, &st))
			break;
		snprintf(in->name, sizeof(in->name), "%.150s-%d", name, i);
	}
	snprintf(in->tmp, sizeof(in->tmp), "%s/.%s%sXXXXXX", d->dir, in->name, TMP_TAG);
	if (!mkdtemp(in->tmp))
		return -errno;
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
	DIR *dd = opendir(d->dir);
	struct dirent *e;
	size_t n = 0;

	if (!dd)
		return 0;
	while ((e = readdir(dd)) && n < max) {
		if (e->d_name[0] == '.')
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
	char (*names)[256] = malloc(cap * 256), p[4096 + 256];

	if (!names)
		return;
	n = incident_list(d, names, cap);
	for (size_t i = 0; n > d->max && i < n - d->max; i++) {
		snprintf(p, sizeof(p), "%s/%s", d->dir, names[i]);
		if (!remove_dir(p))
			d->removed++;
	}
	free(names);
	sync_dir(d->dir);
}

int incident_end(struct incident_dir *d, struct incident *in, bool keep)
{
	int err = 0;

	if (keep) {
		sync_dir(in->tmp);
		if (rename(in->tmp, in->path))
			err = -errno;
	}
	if (!keep || err) {
		remove_dir(in->tmp);
		d->failed++;
		return err;
	}
	sync_dir(d->dir);
	d->written++;
	bound(d);
	return 0;
}
