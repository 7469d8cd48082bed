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

#define PSI_HOST "/proc/pressure/cpu"

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
	uint64_t id;               /* idtab's key: the first member */
	uint64_t first, prev, now; /* us */
	bool ok;
};

static struct psi_cg *cg_entry(struct psi_track *t, uint64_t id, bool *fresh)
{
	if (!t->cg.esize)
		t->cg = (struct idtab)IDTAB_INIT(struct psi_cg);
	return idtab_put(&t->cg, id, fresh);
}

int psi_read_host(uint64_t *total_us)
{
	return psi_read(PSI_HOST, total_us);
}

void psi_track_host(struct psi_track *t)
{
	uint64_t v;

	if (psi_read_host(&v)) {
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

bool psi_cg_ns(struct psi_track *t, struct cgfs *fs, uint64_t id, bool since_start, uint64_t *ns, bool *host)
{
	const char *p;
	uint64_t v;
	bool fresh;

	if (fs->version != 2 || !(p = cgfs_path(fs, id, false, NULL)))
		return false;
	struct psi_cg *c = cg_entry(t, id, &fresh);
	if (!c || psi_read_cgroup(fs, p, &v, host))
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

	/* The root cgroup has no cpu.pressure: the host's file is its figure. */
	*host = fs->version != 2 || !*rel || !strcmp(rel, "/");
	if (*host)
		return psi_read_host(total_us);
	snprintf(file, sizeof(file), "%s%s/cpu.pressure", fs->mnt, rel);
	return psi_read(file, total_us);
}

struct prime_ctx {
	struct psi_track *t;
	struct cgfs *fs;
};

static int prime_one(void *ctx, const char *rel, uint64_t id)
{
	struct prime_ctx *x = ctx;
	uint64_t v;
	bool fresh, host;

	/* The root too (its figure is the host's file): else it would count from boot. */
	if (psi_read_cgroup(x->fs, rel, &v, &host))
		return 0;
	struct psi_cg *c = cg_entry(x->t, id, &fresh);
	if (c) {
		c->first = c->prev = c->now = v;
		c->ok = true;
	}
	return 0;
}

void psi_track_start(struct psi_track *t, struct cgfs *fs, const char *const *below, int nbelow)
{
	struct prime_ctx x = { t, fs };

	psi_track_host(t);
	t->started = true;
	if (fs->version != 2)
		return;
	if (!nbelow)
		cgfs_walk(fs, "/", false, prime_one, &x);
	for (int i = 0; i < nbelow; i++)
		cgfs_walk(fs, below[i], false, prime_one, &x);
}
