/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgsched watch's incidents on disk: each a directory DIR/NAME holding its
 * files, made whole or not at all (written in DIR/.NAME.new-XXXXXX, each
 * file fsync'd, then renamed to NAME and DIR fsync'd): a watch killed
 * while writing leaves a hidden directory, removed (and counted) when the
 * next starts. At most max are kept: the oldest (by name: they begin with
 * their time) go first, counted.
 */
#ifndef CGS_INCIDENT_H
#define CGS_INCIDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct incident_dir {
	char *dir;
	unsigned max;
	uint64_t written;     /* incidents kept */
	uint64_t removed;     /* the oldest removed for the bound */
	uint64_t failed;      /* incidents that could not be written (a full disk...) */
	uint64_t stale;       /* half-written ones of a killed watch, removed at the start */
};

/* Make DIR (and its parents) if needed, remove stale ones: 0, or -errno with what in why. */
int incident_dir_open(struct incident_dir *d, const char *dir, unsigned max, const char **why);
void incident_dir_close(struct incident_dir *d);

struct incident {
	char name[160];       /* its name in DIR */
	char tmp[4096];       /* where it is written */
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
