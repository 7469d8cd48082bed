// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel/cgroupfs.h"
#include "kernel/runtime_state.h"
#include "lib/cgname.h"
#include "lib/util.h"

struct cgfs_name {
	uint64_t id;      /* 0: empty slot */
	char *path;       /* relative, "/" for the root; NULL: not found */
	struct cgname *who; /* decoded from path on first ask; NULL: not yet, or nothing to say */
	bool who_done;
	bool gone;        /* removed (cgfs_note_removed): path is the last one it had */
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = 0;
}

int mountinfo_parse_line(const char *line, struct mountinfo_ent *e)
{
	/* id parent maj:min root mnt opts [optional...] - fstype source superopts */
	char root[PATH_MAX], mnt[PATH_MAX];
	const char *sep;
	char fstype[64], source[PATH_MAX], super[512];

	if (sscanf(line, "%*u %*u %*s %4095s %4095s", root, mnt) != 2)
		return -EINVAL;
	sep = strstr(line, " - ");
	if (!sep || sscanf(sep + 3, "%63s %4095s %511s", fstype, source, super) != 3)
		return -EINVAL;
	unescape(root);
	unescape(mnt);
	snprintf(e->root, sizeof(e->root), "%s", root);
	snprintf(e->mnt, sizeof(e->mnt), "%s", mnt);
	snprintf(e->fstype, sizeof(e->fstype), "%s", fstype);
	snprintf(e->superopts, sizeof(e->superopts), "%s", super);
	return 0;
}

bool opts_have(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l == n && !strncmp(p, opt, n))
			return true;
		p = c ? c + 1 : NULL;
	}
	return false;
}

static bool v2_has_cpu(const char *mnt)
{
	char path[PATH_MAX + 32], buf[512];
	FILE *f;
	bool ok = false;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n"))
			if (!strcmp(t, "cpu"))
				ok = true;
	}
	fclose(f);
	return ok;
}

int mountinfo_find_cpu(FILE *mi, int *version, char *mnt, size_t len,
		       bool (*has_cpu)(const char *mnt))
{
	char line[8192];
	struct mountinfo_ent e;
	char v2[PATH_MAX] = "";

	while (fgets(line, sizeof(line), mi)) {
		if (mountinfo_parse_line(line, &e))
			continue;
		if (!strcmp(e.fstype, "cgroup") && opts_have(e.superopts, "cpu")) {
			*version = 1;
			snprintf(mnt, len, "%s", e.mnt);
			return 0;
		}
		if (!strcmp(e.fstype, "cgroup2") && !v2[0] && has_cpu(e.mnt))
			snprintf(v2, sizeof(v2), "%s", e.mnt);
	}
	if (!v2[0])
		return -ENOENT;
	*version = 2;
	snprintf(mnt, len, "%s", v2);
	return 0;
}

int cgpath_normalize(const char *mnt, const char *in, char *out, size_t len)
{
	size_t ml = strlen(mnt), o = 0;
	const char *p = in;

	if (!in || !*in)
		return -EINVAL;
	/* An absolute path under the mount point: strip the mount point. */
	if (ml > 1 && !strncmp(in, mnt, ml) && (in[ml] == '/' || in[ml] == 0))
		p = in + ml;
	if (len < 2)
		return -ENAMETOOLONG;
	out[o++] = '/';
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *s = strchr(p, '/');
		size_t l = s ? (size_t)(s - p) : strlen(p);
		if (l == 1 && p[0] == '.') {
			p += l;
			continue;
		}
		if (l == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if (o > 1) {
			if (o + 1 >= len)
				return -ENAMETOOLONG;
			out[o++] = '/';
		}
		if (o + l >= len)
			return -ENAMETOOLONG;
		memcpy(out + o, p, l);
		o += l;
		p += l;
	}
	out[o] = 0;
	return 0;
}

int cgfs_open(struct cgfs *fs)
{
	FILE *mi = fopen("/proc/self/mountinfo", "r");
	int err;

	memset(fs, 0, sizeof(*fs));
	fs->mnt_fd = -1;
	if (!mi)
		return -errno;
	err = mountinfo_find_cpu(mi, &fs->version, fs->mnt, sizeof(fs->mnt), v2_has_cpu);
	fclose(mi);
	if (err)
		return err;
	fs->mnt_fd = open(fs->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->mnt_fd < 0)
		return -errno;
	fs->names = (struct idtab)IDTAB_INIT(struct cgfs_name);
	/* Try the O(1) resolver on the root (id 1 is not assumed: ask). */
	uint64_t root;
	fs->handles = true;
	if (!cgfs_id(fs, "/", &root) && !cgfs_path(fs, root, false, NULL))
		fs->handles = false;
	cgs_debug("cpu controller: cgroup v%d at %s (id -> path by %s)", fs->version, fs->mnt,
		  fs->handles ? "file handle" : "tree scan");
	return 0;
}

int cgfs_open_or_explain(struct cgfs *fs)
{
	int err = cgfs_open(fs);

	if (!err)
		return 0;
	cgs_err("no cgroup hierarchy with the cpu controller found in /proc/self/mountinfo (%s): mount cgroup v1 'cpu' or enable 'cpu' in cgroup v2",
		strerror(-err));
	return CGS_EXIT_USAGE;
}

int cgfs_writable_or_explain(struct cgfs *fs, const char *cmd)
{
	struct statvfs st;

	if (fstatvfs(fs->mnt_fd, &st) || !(st.f_flag & ST_RDONLY))
		return 0;
	cgs_err("%s: cgroup v%d at %s is mounted read-only: nothing can be set here; run where it is writable (the host, or a container given a writable cgroup mount)",
		cmd, fs->version, fs->mnt);
	return CGS_EXIT_USAGE;
}

void cgfs_close(struct cgfs *fs)
{
	for (size_t i = 0; i < fs->names.cap; i++) {
		struct cgfs_name *n = idtab_at(&fs->names, i);
		if (n) {
			free(n->path);
			free(n->who);
		}
	}
	idtab_free(&fs->names);
	if (fs->mnt_fd >= 0)
		close(fs->mnt_fd);
	fs->mnt_fd = -1;
}

int cgfs_id(struct cgfs *fs, const char *rel, uint64_t *id)
{
	struct stat st;
	const char *r = rel[0] == '/' ? rel + 1 : rel;

	if (fstatat(fs->mnt_fd, *r ? r : ".", &st, 0))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* kernfs: a directory's inode number is its node id on 64-bit ino_t. */
	*id = st.st_ino;
	return 0;
}

static void cache_put(struct cgfs *fs, uint64_t id, const char *path)
{
	struct cgfs_name *s = idtab_put(&fs->names, id, NULL);

	if (!s)
		return; /* out of memory: not cached, looked up again next time */
	/*
	 * A tree scan puts every cgroup again: an unchanged entry keeps its
	 * strings, which callers may hold (a report's rows, for one refresh).
	 */
	if (path && s->path && !strcmp(s->path, path))
		return;
	free(s->path);
	free(s->who);
	s->path = path ? strdup(path) : NULL;
	s->who = NULL;
	s->who_done = false;
}

void cgfs_note_removed(struct cgfs *fs, uint64_t id, const char *path)
{
	struct cgfs_name *s = idtab_find(&fs->names, id);

	/* Unknown, or looked up only once it was gone: the kernel's word for it. */
	if ((!s || !s->path) && path && *path == '/') {
		cache_put(fs, id, path);
		s = idtab_find(&fs->names, id);
	}
	if (s && !s->gone) {
		s->gone = true;
		fs->nremoved++;
	}
}

bool cgfs_told_removed(struct cgfs *fs, uint64_t id)
{
	const struct cgfs_name *s = idtab_find(&fs->names, id);

	return s && s->gone;
}

void cgfs_forget(struct cgfs *fs, uint64_t id)
{
	struct cgfs_name *s = idtab_find(&fs->names, id);

	if (!s)
		return;
	free(s->path);
	free(s->who);
	idtab_del(&fs->names, id);
}

/*
 * A cgroup removed between open_by_handle_at and readlink reads back as
 * "PATH (deleted)", d_path's mark for an unlinked dentry. PATH is the path
 * it had, which is how a removed cgroup is shown; with the mark it would
 * be a name no one gave. Strip the mark unless a live directory really
 * has that name: then that inode is at that path.
 */
static void unlinked_suffix(char *abs, size_t n, uint64_t id)
{
	static const char mark[] = " (deleted)";
	size_t ml = sizeof(mark) - 1;
	struct stat st;

	if (n <= ml || strcmp(abs + n - ml, mark))
		return;
	if (!lstat(abs, &st) && S_ISDIR(st.st_mode) && st.st_ino == id)
		return;
	abs[n - ml] = 0;
}

/* O(1): open the directory by its kernfs file handle and read its path back. */
static int resolve_handle(struct cgfs *fs, uint64_t id, char *out, size_t len)
{
	struct {
		struct file_handle h;
		unsigned char id[8];
	} fh = { .h = { .handle_bytes = 8, .handle_type = 0xfe /* FILEID_KERNFS */ } };
	char link[64], abs[PATH_MAX];
	ssize_t n;
	int fd;

	memcpy(fh.h.f_handle, &id, 8);
	fd = open_by_handle_at(fs->mnt_fd, &fh.h, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, abs, sizeof(abs) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	abs[n] = 0;
	unlinked_suffix(abs, (size_t)n, id);
	return cgpath_normalize(fs->mnt, abs, out, len);
}

/* --- walks ----------------------------------------------------------------- */

struct walk {
	struct cgfs *fs;
	bool post;
	int (*cb)(void *ctx, const char *rel, uint64_t id);
	void *ctx;
	dev_t dev;
	char rel[PATH_MAX];
};

/*
 * The directory open at dfd (closed here), whose path w->rel is len bytes,
 * and every one below it. Symbolic links are not followed, other mounts not
 * entered; a directory that goes away meanwhile is passed over.
 */
static int walk_dir(struct walk *w, int dfd, size_t len, uint64_t id)
{
	int err = w->post ? 0 : w->cb(w->ctx, w->rel, id);
	/* Children are written after "/a" at len, after the root "/" at 0. */
	size_t at = len == 1 ? 0 : len;
	struct dirent *e;
	DIR *d = NULL;

	if (err) {
		close(dfd);
		goto out;
	}
	if (!(d = dir_from_fd(dfd)))
		goto out;
	while (!err && (e = readdir(d))) {
		struct stat st;
		int cfd, n;

		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) || !strcmp(e->d_name, ".") ||
		    !strcmp(e->d_name, ".."))
			continue;
		n = snprintf(w->rel + at, sizeof(w->rel) - at, "/%s", e->d_name);
		if (n < 0 || (size_t)n >= sizeof(w->rel) - at) {
			w->rel[len] = 0; /* deeper than PATH_MAX: no path to name it by */
			continue;
		}
		cfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd >= 0 && !fstat(cfd, &st) && st.st_dev == w->dev)
			err = walk_dir(w, cfd, at + n, st.st_ino);
		else if (cfd >= 0)
			close(cfd);
		w->rel[len] = 0;
	}
out:
	if (d)
		closedir(d);
	return !err && w->post ? w->cb(w->ctx, w->rel, id) : err;
}

int cgfs_walk(struct cgfs *fs, const char *below, bool post_order,
	      int (*cb)(void *ctx, const char *rel, uint64_t id), void *ctx)
{
	struct walk w = { .fs = fs, .post = post_order, .cb = cb, .ctx = ctx };
	const char *r = below[0] == '/' ? below + 1 : below;
	struct stat st;
	int fd, n, err;

	n = snprintf(w.rel, sizeof(w.rel), "/%s", r);
	if (n < 0 || (size_t)n >= sizeof(w.rel))
		return -ENAMETOOLONG;
	fd = openat(fs->mnt_fd, *r ? r : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	w.dev = st.st_dev;
	err = walk_dir(&w, fd, n, st.st_ino);
	fd = -1; /* closed by walk_dir */
out:
	if (fd >= 0)
		close(fd);
	return err;
}

static int scan_one(void *fs, const char *rel, uint64_t id)
{
	cache_put(fs, id, rel);
	return 0;
}

/* cgfs_path, and with gone set when its handle no longer opens (removed, and not named by the tracer). */
static const char *lookup(struct cgfs *fs, uint64_t id, bool check_alive, const char **last, bool *gone)
{
	struct cgfs_name *s = idtab_find(&fs->names, id);
	char rel[PATH_MAX];

	if (last)
		*last = NULL;
	if (s && s->path && s->gone) {
		if (last)
			*last = s->path;
		return NULL;
	}
	if (s && s->path) {
		uint64_t now;
		if (!check_alive || fs->removals_told || (!cgfs_id(fs, s->path, &now) && now == id))
			return s->path;
		if (last)
			*last = s->path;
		return NULL;
	}
	if (s)
		return NULL; /* known to be gone */
	if (fs->handles) {
		int err = resolve_handle(fs, id, rel, sizeof(rel));
		if (!err) {
			cache_put(fs, id, rel);
			return (s = idtab_find(&fs->names, id)) ? s->path : NULL;
		}
		/*
		 * The cgroup is gone: do not cache it, since nothing would ever
		 * forget the entry. The tracer forgets the cgroups it had, but
		 * that may come before such a lookup. Callers that name many
		 * removed cgroups (watch's incidents) would grow the table without
		 * bound. Looking an id up again costs one open_by_handle_at.
		 */
		if (err == -ESTALE || err == -ENOENT) {
			*gone = true;
			return NULL;
		}
		fs->handles = false;
		cgs_debug("file handles unavailable (%s): falling back to tree scans",
			  strerror(-err));
	}
	/* Fallback: one scan fills the cache for every cgroup at once. */
	cgfs_walk(fs, "/", false, scan_one, fs);
	fs->scans++;
	if ((s = idtab_find(&fs->names, id)) && s->path)
		return s->path;
	cache_put(fs, id, NULL);
	return NULL;
}

const char *cgfs_path(struct cgfs *fs, uint64_t id, bool check_alive, const char **last)
{
	bool gone;

	return lookup(fs, id, check_alive, last, &gone);
}

bool cgfs_learn(struct cgfs *fs, uint64_t id)
{
	bool gone = false;

	return lookup(fs, id, false, NULL, &gone) || !gone;
}

/*
 * A pod's own cgroup names no container, so take the pod's name and
 * namespace from the state of a container below it. Any one will do:
 * they all carry the pod's names.
 */
static void pod_names_from_children(struct cgfs *fs, const char *path, struct cgname *pod)
{
	const char *r = path[0] == '/' ? path + 1 : path;
	DIR *d = dir_open_at(fs->mnt_fd, *r ? r : ".", O_NOFOLLOW);
	char child[PATH_MAX];
	struct dirent *e;
	struct cgname c;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
		    snprintf(child, sizeof(child), "%s/%s", path, e->d_name) >= (int)sizeof(child))
			continue;
		cgname_decode(child, &c);
		if (!c.container[0] || strcmp(c.pod_uid, pod->pod_uid) || !runtime_names(&c, child) || !c.pod_name[0])
			continue;
		memcpy(pod->pod_name, c.pod_name, sizeof(c.pod_name));
		memcpy(pod->pod_namespace, c.pod_namespace, sizeof(c.pod_namespace));
		break;
	}
	closedir(d);
}

const struct cgname *cgfs_who(struct cgfs *fs, uint64_t id)
{
	struct cgfs_name *s;
	struct cgname n;

	if (!cgfs_path(fs, id, false, NULL) || !(s = idtab_find(&fs->names, id)))
		return NULL;
	if (!s->who_done) {
		s->who_done = true;
		cgname_decode(s->path, &n);
		/* Once per cgroup (the result is kept): a few small reads of the runtimes' state. */
		if (n.container[0])
			runtime_names(&n, s->path);
		else if (n.pod_uid[0])
			pod_names_from_children(fs, s->path, &n);
		if (cgname_known(&n) && (s->who = malloc(sizeof(n))))
			*s->who = n;
	}
	return s->who;
}

/*
 * "rel/file" relative to the mount's fd. -ENAMETOOLONG rather than a cut
 * path: ".../cpu.max.burst" cut short is ".../cpu.max", another file.
 */
static int rel_path(const char *rel, const char *file, char *out, size_t len)
{
	const char *r = rel[0] == '/' ? rel + 1 : rel;
	int n = snprintf(out, len, "%s%s%s", *r ? r : ".", file ? "/" : "", file ? file : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int cgfs_read(struct cgfs *fs, const char *rel, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	int fd, err;
	ssize_t n;

	if ((err = rel_path(rel, file, path, sizeof(path))))
		return err;
	fd = openat(fs->mnt_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return (int)n;
}

void cgpath_parent(const char *rel, char *out, size_t len)
{
	const char *slash = strrchr(rel, '/');
	size_t n = slash && slash != rel ? (size_t)(slash - rel) : 1;

	snprintf(out, len, "%.*s", (int)n, rel);
}

int cgfs_enable_cpu_in_parent(struct cgfs *fs, const char *rel, bool *enabled)
{
	char parent[PATH_MAX], ctl[512];

	*enabled = false;
	if (fs->version != 2)
		return 0;
	cgpath_parent(rel, parent, sizeof(parent));
	if (cgfs_read(fs, parent, "cgroup.subtree_control", ctl, sizeof(ctl)) < 0)
		return -errno;
	for (char *t = strtok(ctl, " \n"); t; t = strtok(NULL, " \n"))
		if (!strcmp(t, "cpu"))
			return 0;
	int err = cgfs_write(fs, parent, "cgroup.subtree_control", "+cpu");
	*enabled = !err;
	return err;
}

int cgfs_write(struct cgfs *fs, const char *rel, const char *file, const char *value)
{
	char path[PATH_MAX];
	int fd, err;
	ssize_t n;

	if ((err = rel_path(rel, file, path, sizeof(path))))
		return err;
	/* O_TRUNC as a shell's `>`: nothing to cgroupfs, a whole new value to a unit test's fake tree. */
	fd = openat(fs->mnt_fd, path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

int cgfs_mkdir(struct cgfs *fs, const char *rel)
{
	char path[PATH_MAX];
	int err;

	if ((err = rel_path(rel, NULL, path, sizeof(path))))
		return err;
	return mkdirat(fs->mnt_fd, path, 0755) ? -errno : 0;
}

int cgfs_rmdir(struct cgfs *fs, const char *rel)
{
	char path[PATH_MAX];
	int err;

	if ((err = rel_path(rel, NULL, path, sizeof(path))))
		return err;
	return unlinkat(fs->mnt_fd, path, AT_REMOVEDIR) ? -errno : 0;
}

/* The cpu hierarchy's cgroup of pid ("self" for us) into out ("/" when unknown); 0, or -errno. */
static int cgroup_of(struct cgfs *fs, const char *pid, char *out, size_t len)
{
	char path[64], line[PATH_MAX + 64];
	FILE *f;
	int err = -ENOENT;

	snprintf(out, len, "/");
	snprintf(path, sizeof(path), "/proc/%s/cgroup", pid);
	if (!(f = fopen(path, "r")))
		return -errno;
	/* v1: "4:cpu,cpuacct:/path"; v2: "0::/path". */
	while (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		line[strcspn(b + 1, "\n") + (b + 1 - line)] = 0;
		if ((fs->version == 2 && !strcmp(a + 1, "")) || (fs->version == 1 && opts_have(a + 1, "cpu"))) {
			snprintf(out, len, "%s", b + 1);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/*
 * Send SIGKILL to each process of rel through a pidfd. A pid read from
 * cgroup.procs may belong to another process by the time of a kill(). A
 * pidfd holds the process that had the pid when the pidfd was opened. It
 * is killed only if it still lives after its cgroup was read back, which
 * proves the pid was still its own. So a reused pid is never signalled.
 * Returns how many processes were signalled.
 */
static int kill_by_pidfd(struct cgfs *fs, const char *rel)
{
	char buf[65536], at[PATH_MAX], num[24];
	int n = cgfs_read(fs, rel, "cgroup.procs", buf, sizeof(buf)), killed = 0;

	for (char *p = buf; n > 0 && *p;) {
		long pid = strtol(p, &p, 10);
		while (*p == '\n')
			p++;
		int pfd = pid > 0 ? (int)syscall(SYS_pidfd_open, (pid_t)pid, 0) : -1;
		if (pfd < 0)
			continue;
		snprintf(num, sizeof(num), "%ld", pid);
		if (!cgroup_of(fs, num, at, sizeof(at)) && !syscall(SYS_pidfd_send_signal, pfd, 0, NULL, 0) &&
		    !strcmp(at, rel) && !syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0))
			killed++;
		close(pfd);
	}
	return killed;
}

/* Whether rel has a process still (waiting for cgroup.kill's to leave). */
static int has_procs(struct cgfs *fs, const char *rel)
{
	char buf[64];

	return cgfs_read(fs, rel, "cgroup.procs", buf, sizeof(buf)) > 0;
}

/*
 * Kill every process of rel and below. Use cgroup.kill (v2, 5.14) where
 * it exists: the kernel kills the whole subtree at once, races with no
 * fork and needs no pid. Else use pidfds, cgroup by cgroup (rm_one).
 */
static const char *kill_method(struct cgfs *fs, const char *rel)
{
	if (fs->version == 2 && !cgfs_write(fs, rel, "cgroup.kill", "1"))
		return "cgroup.kill";
	return "pidfd";
}

/* Deepest first (a post-order walk): the last error is kept, the rest still tried. */
struct rm_ctx {
	struct cgfs *fs;
	int err;
	bool killed_all; /* by cgroup.kill: only waited for */
};

static int rm_one(void *vctx, const char *rel, uint64_t id)
{
	struct rm_ctx *rm = vctx;
	int err = 0;

	/* Tasks take a moment to leave a cgroup after SIGKILL (cgroup.kill's too). */
	for (int i = 0; i < 50 && (rm->killed_all ? has_procs(rm->fs, rel) : kill_by_pidfd(rm->fs, rel)); i++)
		usleep(20000);
	for (int i = 0; i < 50; i++) {
		if (!(err = cgfs_rmdir(rm->fs, rel)) || err != -EBUSY)
			break;
		usleep(20000);
	}
	if (err)
		rm->err = err;
	return 0;
}

int cgfs_remove(struct cgfs *fs, const char *rel)
{
	const char *how = kill_method(fs, rel);
	struct rm_ctx rm = { fs, 0, !strcmp(how, "cgroup.kill") };

	cgs_debug("%s: its processes ended by %s", rel, how);
	int err = cgfs_walk(fs, rel, true, rm_one, &rm);

	return err ? err : rm.err;
}

void cgfs_self(struct cgfs *fs, char *out, size_t len)
{
	cgroup_of(fs, "self", out, len);
}

int keyed_get(const char *text, const char *key, uint64_t *val)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			char num[32];
			size_t i = 0;
			p += kl + 1;
			while (p[i] && p[i] != '\n' && i < sizeof(num) - 1) {
				num[i] = p[i];
				i++;
			}
			num[i] = 0;
			return parse_u64(num, 0, UINT64_MAX, val);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}
