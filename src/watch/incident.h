/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The incidents of cgsched watch on disk. Each is a directory DIR/NAME
 * holding its files, made whole or not at all. The files are written in
 * DIR/.NAME.new-XXXXXX and each is fsync'd; then the directory is renamed
 * to NAME and DIR is fsync'd. A watch killed while writing leaves a hidden
 * directory, which the next watch removes at start and counts. At most max
 * incidents are kept. The oldest go first, and are counted; names begin
 * with the time, so the oldest sorts first.
 *
 * DIR must be root's alone: watch removes what it finds there as root.
 * It is opened once, and its entries are listed and removed through that
 * descriptor. Only real directories are removed, never what a symlink
 * points to.
 */
#ifndef CGS_INCIDENT_H
#define CGS_INCIDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct incident_dir {
	char *dir;
	int fd;               /* DIR, opened and checked once; -1 before (a --dump lists by the name) */
	unsigned max;
	uint64_t written;     /* incidents kept */
	uint64_t removed;     /* the oldest removed for the bound */
	uint64_t failed;      /* incidents that could not be written (a full disk...) */
	uint64_t stale;       /* half-written ones of a killed watch, removed at the start */
};

/*
 * Make DIR and its parents if needed; remove stale incidents. 0, or -errno
 * with what failed in why. -EPERM: DIR is not this user's alone (why says
 * which, and what to do).
 */
int incident_dir_open(struct incident_dir *d, const char *dir, unsigned max, const char **why);
#define INCIDENT_DIR_NOT_OURS "not owned by root: refused, as watch removes files there; chown root it, or give another --dir"
#define INCIDENT_DIR_WIDE "writable by group or others: refused, as anyone could plant files for watch to remove; chmod go-w it, or give another --dir"
void incident_dir_close(struct incident_dir *d);

struct incident {
	char name[160];       /* its name in DIR */
	char tmp[4096];       /* where it is written */
	const char *tmp_name; /* its last part, in DIR */
	char path[4096];      /* DIR/NAME, once kept */
};
/* A new incident named name (made unique): 0 or -errno. */
int incident_begin(struct incident_dir *d, const char *name, struct incident *in);
/* The path of one of its files, for writers that write their own (the trace). */
const char *incident_file(const struct incident *in, const char *file, char *buf, size_t n);
/* One of its files, whole: 0 or -errno. */
int incident_put(const struct incident *in, const char *file, const void *buf, size_t len);
/* keep: the incident is kept under its name, its files on disk first; else removed. 0 or -errno. */
int incident_end(struct incident_dir *d, struct incident *in, bool keep);
/* The incidents kept, oldest first: at most max names into names (each NAME_MAX+1). */
size_t incident_list(const struct incident_dir *d, char (*names)[256], size_t max);
/* A cgroup path as part of a name: "/a/b.slice" -> "a_b.slice", "/" -> "root"; at most n-1 characters. */
void incident_slug(const char *path, char *out, size_t n);

#endif
