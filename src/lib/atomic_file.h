/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A file written whole or not at all (record -o, --timeline, enforce's
 * journal). It goes into a new file beside the target, ".NAME.new-XXXXXX",
 * which is then renamed over it. A symlink, or anything else, at the
 * target is replaced, never followed. A reader sees the old file or the
 * new one, never half of one.
 */
#ifndef CGS_ATOMIC_FILE_H
#define CGS_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct atomic_file {
	int fd;
	char *path;         /* the target */
	char *tmp;          /* where it is written until atomic_file_close */
	bool sync;          /* fsync the file before the rename and the directory after */
};

/* The temporary name's tag: a killed writer's leftovers are ".NAME" ATOMIC_FILE_TAG "XXXXXX". */
#define ATOMIC_FILE_TAG ".new-"

/*
 * Open a new file beside path, with mode (0: mkstemp's 0600). mkstemp
 * gives a name no one prepared, even in a directory anyone may write. With
 * sync, the file is on disk before the name points at it, so a power cut
 * leaves the old file or the new one. Returns 0 or -errno.
 */
int atomic_file_open(struct atomic_file *f, const char *path, mode_t mode, bool sync);
/*
 * Make and remove the temporary file that atomic_file_open would make for
 * path, by the same construction: a name it can make now will not fail at
 * the end for its length ("." and ATOMIC_FILE_TAG "XXXXXX" add 12 bytes).
 * For a check before a long run. Returns 0 or -errno (-ENAMETOOLONG).
 */
int atomic_file_check(const char *path);
/* How much longer the temporary name is than the target's. */
#define ATOMIC_FILE_EXTRA (sizeof("." ATOMIC_FILE_TAG "XXXXXX") - 1)
/* All of buf (a signal's EINTR is retried). 0 or -errno (-EIO: a short write). */
int atomic_file_write(struct atomic_file *f, const void *buf, size_t len);
/* keep: the file becomes path; else (or on an error) it is removed. 0 or -errno. */
int atomic_file_close(struct atomic_file *f, bool keep);
/* The three at once, for what is in memory already. */
int atomic_file_put(const char *path, const void *buf, size_t len, mode_t mode, bool sync);
/* Remove path (none there: 0); sync: the directory on disk after it. 0 or -errno. */
int atomic_file_remove(const char *path, bool sync);
/* A writer killed between open and close left its temporary file: remove path's. */
void atomic_file_clean(const char *path);

#endif
