/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * enforce's journal (docs/limits.md): the value each cgroup file had before
 * enforce first changed it. It is kept on disk so that a SIGKILL, an OOM
 * kill or a power cut does not lose it. Before the change it covers, the
 * journal is written whole to a temporary file, fsync'd and renamed over
 * the journal, and the directory is fsync'd. It is removed after a clean
 * restore. It is a text file:
 *
 *   cgsched-journal 1
 *   pid 4242
 *   boot 326fc945-491d-48bf-aef6-db5614fac009
 *   hierarchy 1 /sys/fs/cgroup/cpu
 *   set 1795 /batch cpu.cfs_quota_us -1
 *   end 1
 *
 * Paths and values are %-encoded: a byte below '!', '%' and DEL become
 * %XX. A cgroup's name may hold any byte but '/' and NUL, and cpu.max's
 * value holds a space.
 */
#ifndef CGS_JOURNAL_H
#define CGS_JOURNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/keyidx.h"
#include "limits/limits_file.h"

struct cgfs;

#define JOURNAL_DEFAULT "/run/cgsched/enforce.journal"
/* The largest journal that journal_load takes; an entry is a line, of up to about 4 KB with the longest paths. */
#define JOURNAL_MAX_BYTES (16 << 20)
#define JOURNAL_MAX_TEXT "16 MiB"

struct journal_ent {
	uint64_t id;     /* the cgroup's id then: one made again under the name is another */
	char *rel;       /* normalised path */
	char file[32];
	char orig[64];
};

struct journal {
	char path[PATH_MAX];
	long pid;               /* the enforce that wrote it */
	char boot[40];          /* /proc/sys/kernel/random/boot_id when written */
	int version;            /* the cpu hierarchy's cgroup version and mount point */
	char root[PATH_MAX];
	struct journal_ent *e;  /* in the order of the first changes */
	size_t n, cap;
	struct keyidx idx;      /* e by (rel, file) */
};

/* An empty journal at path, for this process, boot and hierarchy. */
void journal_init(struct journal *j, const char *path, const struct cgfs *fs);
void journal_free(struct journal *j);
/* Adds an entry (one per cgroup file): 0 or -ENOMEM; -EEXIST when it is there. */
int journal_add(struct journal *j, uint64_t id, const char *rel, const char *file, const char *orig);
/* The entry of rel's file, or NULL. */
const struct journal_ent *journal_find(const struct journal *j, const char *rel, const char *file);
/* Removes the entry of rel's file, if any; true when there was one. */
bool journal_drop(struct journal *j, const char *rel, const char *file);

/* The cpu limit files a journal may name, and what their values look like. */
bool journal_file_ok(const char *file);
bool journal_value_ok(const char *file, const char *value);

/*
 * Parse and check a whole journal (len bytes, NUL-terminated), named path in
 * messages: 0, or -1 with "PATH:LINE: why" in err. Nothing is half-taken.
 */
int journal_parse(const char *text, size_t len, const char *path, struct journal *j, char *err, size_t errlen);
/* The text of j (malloc'd, NUL-terminated), or NULL without memory. */
char *journal_format(const struct journal *j, size_t *len);

/* Read path: 0; -ENOENT when there is none; -1 with a line in err when unreadable or malformed. */
int journal_load(const char *path, struct journal *j, char *err, size_t errlen);
/*
 * Atomically replace j->path with j: temp file, fsync, rename, fsync of the
 * directory. 0 or -errno; -EFBIG, with nothing written, when the text would
 * be over JOURNAL_MAX_BYTES, which journal_load refuses.
 */
int journal_save(const struct journal *j);
/* Remove it (and fsync the directory): 0 or -errno; none there is 0. */
int journal_remove(const char *path);

/*
 * Allow one enforce per journal, with an exclusive flock on PATH.lock,
 * held until the process ends. PATH.lock is made when missing and never
 * removed, since removing a lock file races with its next taker. Returns
 * the lock's fd, or -EBUSY with the holder's pid in *holder (0 if
 * unknown). Returns -EPERM if PATH.lock is not a file of this user's
 * alone: a hard link, another owner, or writable by others
 * (JOURNAL_LOCK_UNSAFE says so). Else -errno. Once the lock is held,
 * temporary files that a killed writer left beside the journal are
 * removed.
 */
int journal_lock(const char *path, long *holder);
#define JOURNAL_LOCK_UNSAFE "not a file of this user's alone (a hard link, another owner, or writable by others): remove it, or give --journal FILE in a directory only root can write"

/* This boot's id (/proc/sys/kernel/random/boot_id), "unknown" when unreadable. */
void journal_boot_id(char *buf, size_t len);
/* The journal was written in this boot: cgroups are made afresh at boot, so other journals are void. */
bool journal_this_boot(const struct journal *j);
/* 0 when j is for the mounted hierarchy, else -1 with a line in err. */
int journal_for(const struct journal *j, const struct cgfs *fs, char *err, size_t errlen);

/*
 * Plan the writes that put j's values back, newest entry first: the kernel
 * refuses a quota below its burst, so undo in reverse. Files already at
 * their value are left out. So are entries whose cgroup is gone, or is
 * now another cgroup under the same name; skipped(ctx, entry, replaced) is
 * called for each. Returns 0, or -errno (-ENOMEM) with p empty.
 */
int journal_plan(const struct journal *j, struct cgfs *fs, struct plan *p,
		 void (*skipped)(void *ctx, const struct journal_ent *e, bool replaced), void *ctx);

#endif
