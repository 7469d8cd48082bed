// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/psi.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/cgroupfs.h"

int psi_parse_some(const char *text, uint64_t *total_us)
{
	const char *l = text;

	while (l && *l) {
		if (!strncmp(l, "some ", 5)) {
			const char *t = strstr(l, " total=");
			const char *eol = strchr(l, '\n');
			char *end;
			if (!t || (eol && t > eol))
				return -1;
			t += 7;
			if (*t < '0' || *t > '9')
				return -1;
			errno = 0;
			unsigned long long v = strtoull(t, &end, 10);
			if (errno || (*end && *end != '\n' && *end != ' '))
				return -1;
			*total_us = v;
			return 0;
		}
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return -1;
}

int psi_read(const char *path, uint64_t *total_us)
{
	char buf[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[n] = 0;
	return psi_parse_some(buf, total_us) ? -EINVAL : 0;
}

struct psi_cg {
	uint64_t first, prev, now; /* us */
	bool ok;
};

void psi_track_host(struct psi_track *t)
{
	uint64_t v;

	if (psi_read("/proc/pressure/cpu", &v)) {
		t->host_ok = false;
		return;
	}
	if (!t->host_ok && !t->host_first)
		t->host_first = t->host_prev = v;
	else
		t->host_prev = t->host_now;
	t->host_now = v;
	t->host_ok = true;
}

bool psi_host_ns(const struct psi_track *t, bool since_start, uint64_t *ns)
{
	if (!t->host_ok)
		return false;
	uint64_t from = since_start ? t->host_first : t->host_prev;
	*ns = t->host_now > from ? (t->host_now - from) * 1000 : 0;
	return true;
}

bool psi_cg_ns(struct psi_track *t, struct cgfs *fs, uint64_t id, bool since_start, uint64_t *ns)
{
	char file[PATH_MAX + 32];
	const char *p;
	uint64_t v;
	bool fresh;

	if (fs->version != 2 || !(p = cgfs_path(fs, id, false, NULL)))
		return false;
	if (!t->cg.esize)
		t->cg = (struct idtab)IDTAB_INIT(struct psi_cg);
	/* The root cgroup has no cpu.pressure: the host's file is its figure. */
	if (!strcmp(p, "/") || !*p)
		snprintf(file, sizeof(file), "/proc/pressure/cpu");
	else
		snprintf(file, sizeof(file), "%s%s/cpu.pressure", fs->mnt, p);
	struct psi_cg *c = idtab_put(&t->cg, id, &fresh);
	if (!c || psi_read(file, &v))
		return false;
	/* Not there at the start (psi_track_start): its whole history is in the window. */
	if (fresh || !c->ok) {
		c->first = c->prev = t->started ? 0 : v;
		c->now = v;
	} else if (!since_start) {
		c->prev = c->now;
		c->now = v;
	} else {
		c->now = v;
	}
	c->ok = true;
	uint64_t from = since_start ? c->first : c->prev;
	*ns = c->now > from ? (c->now - from) * 1000 : 0;
	return true;
}

void psi_track_free(struct psi_track *t)
{
	idtab_free(&t->cg);
	memset(t, 0, sizeof(*t));
}

int psi_read_cgroup(struct cgfs *fs, const char *rel, uint64_t *total_us, bool *host)
{
	char file[PATH_MAX + 32];

	*host = fs->version != 2 || !strcmp(rel, "/");
	if (*host)
		return psi_read("/proc/pressure/cpu", total_us);
	snprintf(file, sizeof(file), "%s%s/cpu.pressure", fs->mnt, rel);
	return psi_read(file, total_us);
}

static int prime_one(void *ctx, const char *rel, uint64_t id)
{
	struct psi_track *t = ctx;
	struct cgfs *fs = t->fs;
	char file[PATH_MAX + 32];
	uint64_t v;
	bool fresh;

	if (!strcmp(rel, "/"))
		return 0; /* the root has no cpu.pressure: the host's file is its figure */
	snprintf(file, sizeof(file), "%s%s/cpu.pressure", fs->mnt, rel);
	if (psi_read(file, &v))
		return 0;
	struct psi_cg *c = idtab_put(&t->cg, id, &fresh);
	if (c)
		*c = (struct psi_cg){ .first = v, .prev = v, .now = v, .ok = true };
	return 0;
}

void psi_track_start(struct psi_track *t, struct cgfs *fs, const char *const *below, int nbelow)
{
	psi_track_host(t);
	t->started = true;
	if (fs->version != 2)
		return;
	t->fs = fs;
	if (!t->cg.esize)
		t->cg = (struct idtab)IDTAB_INIT(struct psi_cg);
	if (!nbelow)
		cgfs_walk(fs, "/", false, prime_one, t);
	for (int i = 0; i < nbelow; i++)
		cgfs_walk(fs, below[i], false, prime_one, t);
}
