// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/cgroupfs.h"
#include "lib/atomic_file.h"
#include "lib/util.h"
#include "limits/journal.h"

#define JOURNAL_MAGIC "cgsched-journal 1"

/* A boot id as the kernel writes it (a UUID), or "unknown". */
static bool boot_ok(const char *s, size_t n)
{
	if (!n || n >= 40)
		return false;
	if (n == 7 && !memcmp(s, "unknown", 7))
		return true;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || s[i] == '-'))
			return false;
	return true;
}

void journal_boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	char id[64] = "";
	bool ok = f && fgets(id, sizeof(id), f);

	if (f)
		fclose(f);
	id[strcspn(id, "\n")] = 0;
	ok = ok && boot_ok(id, strlen(id));
	snprintf(buf, len, "%s", ok ? id : "unknown");
}

void journal_init(struct journal *j, const char *path, const struct cgfs *fs)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->path, sizeof(j->path), "%s", path);
	j->pid = getpid();
	journal_boot_id(j->boot, sizeof(j->boot));
	j->version = fs->version;
	snprintf(j->root, sizeof(j->root), "%s", fs->mnt);
}

void journal_free(struct journal *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->e[i].rel);
	free(j->e);
	j->e = NULL;
	j->n = j->cap = 0;
	keyidx_free(&j->idx);
}

static void ent_key(const void *ctx, size_t i, const char **rel, const char **file)
{
	const struct journal *j = ctx;

	*rel = j->e[i].rel;
	*file = j->e[i].file;
}

/* By hash: a pass looks up every file it manages. */
static struct journal_ent *find(const struct journal *j, const char *rel, const char *file)
{
	size_t i = keyidx_find(&j->idx, rel, file, ent_key, j);

	return i == SIZE_MAX ? NULL : &j->e[i];
}

int journal_add(struct journal *j, uint64_t id, const char *rel, const char *file, const char *orig)
{
	struct journal_ent *e;

	if (find(j, rel, file))
		return -EEXIST;
	if (ARRAY_GROW(j->e, j->n, j->cap, 16))
		return -ENOMEM;
	e = &j->e[j->n];
	memset(e, 0, sizeof(*e));
	if (!(e->rel = strdup(rel)))
		return -ENOMEM;
	e->id = id;
	snprintf(e->file, sizeof(e->file), "%s", file);
	snprintf(e->orig, sizeof(e->orig), "%s", orig);
	if (keyidx_add(&j->idx, j->n, e->rel, e->file))
		goto fail;
	j->n++;
	return 0;
fail:
	free(e->rel);
	return -ENOMEM;
}

const struct journal_ent *journal_find(const struct journal *j, const char *rel, const char *file)
{
	return find(j, rel, file);
}

bool journal_drop(struct journal *j, const char *rel, const char *file)
{
	struct journal_ent *e = find(j, rel, file);

	if (!e)
		return false;
	keyidx_remove(&j->idx, e - j->e, j->n, ent_key, j);
	free(e->rel);
	/* The order is the undo order: keep it. */
	memmove(e, e + 1, (j->n - (e - j->e) - 1) * sizeof(*e));
	j->n--;
	return true;
}

/* --- the values a journal may hold ------------------------------------------- */

static const char *const files[] = {
	"cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.cfs_burst_us", "cpu.shares", /* v1 */
	"cpu.max", "cpu.max.burst", "cpu.weight",                                  /* v2 */
};

/* Only these: a journal handed to apply --restore writes no other file (cgroup.procs, ...). */
bool journal_file_ok(const char *file)
{
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		if (!strcmp(file, files[i]))
			return true;
	return false;
}

static bool digits(const char *s, size_t n)
{
	if (!n || n > 20)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

bool journal_value_ok(const char *file, const char *v)
{
	size_t n = strlen(v);

	if (!strcmp(file, "cpu.cfs_quota_us"))
		return !strcmp(v, "-1") || digits(v, n);
	if (!strcmp(file, "cpu.max")) {
		/* "max 100000" or "50000 100000" */
		const char *sp = strchr(v, ' ');
		if (!sp || !digits(sp + 1, strlen(sp + 1)))
			return false;
		return (sp - v == 3 && !strncmp(v, "max", 3)) || digits(v, sp - v);
	}
	return journal_file_ok(file) && digits(v, n);
}

/* --- text ------------------------------------------------------------------ */

static bool plain(unsigned char c)
{
	return c > ' ' && c != '%' && c != 0x7f;
}

/* s %-encoded onto f. */
static void encode(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (plain(*p))
			fputc(*p, f);
		else
			fprintf(f, "%%%02X", *p);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A field of n bytes decoded into out (len bytes): 0, or -1 for bad bytes, %00 or no room. */
static int decode(const char *s, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '%') {
			int hi = i + 2 < n ? hexval(s[i + 1]) : -1, lo = hi >= 0 ? hexval(s[i + 2]) : -1;
			if (hi < 0 || lo < 0 || !(hi | lo))
				return -1;
			c = hi << 4 | lo;
			i += 2;
		} else if (!plain(c)) {
			return -1;
		}
		if (o + 1 >= len)
			return -1;
		out[o++] = c;
	}
	out[o] = 0;
	return 0;
}

/* A normalised cgroup path below the root: "/a/b", no empty, "." or ".." component, no trailing '/'. */
static bool rel_ok(const char *rel)
{
	if (rel[0] != '/' || !rel[1])
		return false;
	for (const char *p = rel; *p;) {
		const char *c = p + 1, *end = strchr(c, '/');
		size_t n = end ? (size_t)(end - c) : strlen(c);
		if (!n || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		p = c + n;
	}
	return true;
}

char *journal_format(const struct journal *j, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	fprintf(f, JOURNAL_MAGIC "\npid %ld\nboot %s\nhierarchy %d ", j->pid, j->boot, j->version);
	encode(f, j->root);
	fputc('\n', f);
	for (size_t i = 0; i < j->n; i++) {
		const struct journal_ent *e = &j->e[i];
		fprintf(f, "set %llu ", (unsigned long long)e->id);
		encode(f, e->rel);
		fprintf(f, " %s ", e->file);
		encode(f, e->orig);
		fputc('\n', f);
	}
	fprintf(f, "end %zu\n", j->n);
	if (fclose(f))
		goto fail;
	*len = n;
	return buf;
fail:
	free(buf);
	return NULL;
}

/* Split a line into exactly want fields on single spaces. */
static int fields(const char *line, size_t n, const char **f, size_t *flen, int want)
{
	int k = 0;

	for (size_t i = 0; i <= n; k++) {
		size_t e = i;
		while (e < n && line[e] != ' ')
			e++;
		if (k == want || e == i)
			return -1;
		f[k] = line + i;
		flen[k] = e - i;
		i = e + 1;
	}
	return k == want ? 0 : -1;
}

static bool is(const char *f, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(f, word, n);
}

static int bad(char *err, size_t errlen, const char *path, int line, const char *why)
{
	snprintf(err, errlen, "%s:%d: %s", path, line, why);
	return -1;
}

int journal_parse(const char *text, size_t len, const char *path, struct journal *j, char *err, size_t errlen)
{
	const char *f[6], *at = text, *why = NULL;
	size_t fl[6];
	char num[24], rel[PATH_MAX], file[32], val[64];
	uint64_t v;
	int line = 0;
	bool ended = false;

	memset(j, 0, sizeof(*j));
	snprintf(j->path, sizeof(j->path), "%s", path);
	if (strnlen(text, len) != len)
		return bad(err, errlen, path, 0, "a NUL byte: not a journal");
	if (!len)
		return bad(err, errlen, path, 0, "empty: not a journal");
	while (at < text + len) {
		const char *nl = memchr(at, '\n', text + len - at);
		size_t n;
		line++;
		if (!nl) {
			why = "cut short (no end of line): not a whole journal";
			goto fail;
		}
		n = nl - at;
		if (ended) {
			why = "a line after 'end'";
			goto fail;
		}
		if (line == 1) {
			if (n != strlen(JOURNAL_MAGIC) || memcmp(at, JOURNAL_MAGIC, n)) {
				/* Not ours at all, or a later format: either way not to be guessed at. */
				why = "not a cgsched journal (expected '" JOURNAL_MAGIC "')";
				goto fail;
			}
		} else if (line == 2) {
			if (fields(at, n, f, fl, 2) || !is(f[0], fl[0], "pid") || fl[1] >= sizeof(num) ||
			    (memcpy(num, f[1], fl[1]), num[fl[1]] = 0, parse_u64(num, 1, 4194304, &v))) {
				why = "expected 'pid N'";
				goto fail;
			}
			j->pid = v;
		} else if (line == 3) {
			if (fields(at, n, f, fl, 2) || !is(f[0], fl[0], "boot") || !boot_ok(f[1], fl[1])) {
				why = "expected 'boot ID' (/proc/sys/kernel/random/boot_id)";
				goto fail;
			}
			memcpy(j->boot, f[1], fl[1]);
			j->boot[fl[1]] = 0;
		} else if (line == 4) {
			if (fields(at, n, f, fl, 3) || !is(f[0], fl[0], "hierarchy") ||
			    !(is(f[1], fl[1], "1") || is(f[1], fl[1], "2")) ||
			    decode(f[2], fl[2], j->root, sizeof(j->root)) || j->root[0] != '/') {
				why = "expected 'hierarchy 1|2 MOUNT-POINT'";
				goto fail;
			}
			j->version = f[1][0] - '0';
		} else if (n >= 4 && !memcmp(at, "end ", 4)) {
			if (fields(at, n, f, fl, 2) || fl[1] >= sizeof(num) ||
			    (memcpy(num, f[1], fl[1]), num[fl[1]] = 0, parse_u64(num, 0, SIZE_MAX, &v)) || v != j->n) {
				why = "'end N' does not count the 'set' lines before it";
				goto fail;
			}
			ended = true;
		} else {
			if (fields(at, n, f, fl, 5) || !is(f[0], fl[0], "set"))
				why = "expected 'set ID PATH FILE VALUE' or 'end N'";
			else if (fl[1] >= sizeof(num) || (memcpy(num, f[1], fl[1]), num[fl[1]] = 0, parse_u64(num, 1, UINT64_MAX, &v)))
				why = "the cgroup id is not a whole number";
			else if (decode(f[2], fl[2], rel, sizeof(rel)) || !rel_ok(rel))
				why = "not a cgroup path below the root (/a/b)";
			else if (fl[3] >= sizeof(file) || (memcpy(file, f[3], fl[3]), file[fl[3]] = 0, !journal_file_ok(file)))
				why = "not a cpu limit file (cpu.cfs_quota_us, cpu.cfs_period_us, cpu.cfs_burst_us, cpu.shares, cpu.max, cpu.max.burst, cpu.weight)";
			else if (decode(f[4], fl[4], val, sizeof(val)) || !journal_value_ok(file, val))
				why = "not a value that file takes";
			else if (find(j, rel, file))
				why = "the same cgroup file twice";
			else if (journal_add(j, v, rel, file, val))
				why = "out of memory";
			if (why)
				goto fail;
		}
		at = nl + 1;
	}
	if (!ended) {
		line++; /* the line where 'end N' should be */
		why = "no 'end N' line: not a whole journal";
		goto fail;
	}
	return 0;
fail:
	journal_free(j);
	return bad(err, errlen, path, line, why);
}

/* --- files ----------------------------------------------------------------- */

int journal_load(const char *path, struct journal *j, char *err, size_t errlen)
{
	char *text;
	size_t len;
	const char *why;
	int r = read_file_trusted(path, JOURNAL_MAX_BYTES, &text, &len, &why);

	memset(j, 0, sizeof(*j));
	if (r == -ENOENT)
		return -ENOENT;
	if (r) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	r = journal_parse(text, len, path, j, err, errlen);
	free(text);
	return r;
}

int journal_save(const struct journal *j)
{
	size_t len;
	char *text = journal_format(j, &len);
	int err;

	if (!text)
		return -ENOMEM;
	/* What journal_load would refuse is not written: the journal on disk stays as it was. */
	if (len > JOURNAL_MAX_BYTES) {
		err = -EFBIG;
		goto out;
	}
	/* Synced: a power cut leaves the old journal or the new one, never none. */
	err = atomic_file_put(j->path, text, len, 0, true);
out:
	free(text);
	return err;
}

int journal_remove(const char *path)
{
	return atomic_file_remove(path, true);
}

int journal_lock(const char *path, long *holder)
{
	char lock[PATH_MAX], buf[32];
	struct stat st;
	int fd, err;
	ssize_t n;

	*holder = 0;
	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", path) >= sizeof(lock))
		return -ENAMETOOLONG;
	if ((fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return -errno;
	/*
	 * The lock file is kept from run to run, since removing it races with
	 * its next taker. So it cannot be opened with O_EXCL. Instead it must
	 * be a file of ours alone before it is truncated. A hard link planted
	 * at its name in a shared directory would truncate the file it links
	 * to; O_NOFOLLOW stops only symlinks.
	 */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 || !stat_ours_alone(&st)) {
		err = -EPERM;
		goto fail;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (err == -EBUSY && (n = pread(fd, buf, sizeof(buf) - 1, 0)) > 0) {
			buf[n] = 0;
			*holder = strtol(buf, NULL, 10);
		}
		goto fail;
	}
	/* Who holds it, for the next one's message. */
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n)
		cgs_debug("%s: could not write the pid: %s", lock, strerror(errno));
	atomic_file_clean(path);
	return fd;
fail:
	close(fd);
	return err;
}

bool journal_this_boot(const struct journal *j)
{
	char now[40];

	journal_boot_id(now, sizeof(now));
	return !strcmp(now, j->boot);
}

int journal_for(const struct journal *j, const struct cgfs *fs, char *err, size_t errlen)
{
	if (j->version == fs->version && !strcmp(j->root, fs->mnt))
		return 0;
	snprintf(err, errlen, "%s: written for cgroup v%d at %s, but the cpu hierarchy is cgroup v%d at %s: "
		 "put its values back by hand, then remove it", j->path, j->version, j->root, fs->version, fs->mnt);
	return -1;
}

int journal_plan(const struct journal *j, struct cgfs *fs, struct plan *p,
		 void (*skipped)(void *ctx, const struct journal_ent *e, bool replaced), void *ctx)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = j->n; i-- > 0;) {
		const struct journal_ent *e = &j->e[i];
		char now[64];
		uint64_t id;
		if (cgfs_id(fs, e->rel, &id) || id != e->id || cgfs_read(fs, e->rel, e->file, now, sizeof(now)) < 0) {
			if (skipped)
				skipped(ctx, e, !cgfs_id(fs, e->rel, &id) && id != e->id);
			continue;
		}
		now[strcspn(now, "\n")] = 0;
		if (!strcmp(now, e->orig))
			continue;
		if (ARRAY_GROW(p->c, p->n, p->cap, 16))
			goto fail;
		struct change *c = &p->c[p->n++];
		memset(c, 0, sizeof(*c));
		snprintf(c->rel, sizeof(c->rel), "%s", e->rel);
		snprintf(c->file, sizeof(c->file), "%s", e->file);
		snprintf(c->old, sizeof(c->old), "%s", now);
		snprintf(c->new, sizeof(c->new), "%s", e->orig);
	}
	plan_order_bursts(p);
	return 0;
fail:
	plan_free(p);
	return -ENOMEM;
}
