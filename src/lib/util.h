/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one error-reporting path, exit codes, and number/duration parsing. */
#ifndef CGS_UTIL_H
#define CGS_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The number of elements of an array (not a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Make room for one more element in the array *(T **)arrayp. It holds *cap
 * elements of size bytes, n of them in use. When full, the array doubles
 * (to first, the first time), up to max (0: no bound). Returns 0, or
 * -ENOMEM with the array and *cap as they were. ARRAY_GROW(a, n, cap,
 * first) covers the common case.
 */
int grow_array(void *arrayp, size_t *cap, size_t n, size_t size, size_t first, size_t max);
#define ARRAY_GROW(a, n, cap, first) grow_array(&(a), &(cap), (n), sizeof(*(a)), (first), 0)

/*
 * Make room for need elements in an array reused from read to read, whose
 * count creeps up as cgroups are made faster than removed. When short, it
 * grows to a quarter more than need, plus 16. Grown to the count exactly,
 * it would move at each new high, and the old block's pages would stay
 * until the next trim. The contents are kept. Returns 0, or -ENOMEM with
 * the array and *cap as they were.
 */
int grow_room(void *arrayp, size_t *cap, size_t need, size_t size);
#define ROOM_FOR(a, need, cap) grow_room(&(a), &(cap), (need), sizeof(*(a)))

/*
 * How many entries ahead a loop over thousands of cgroups prefetches the
 * memory it will read at random (a row's sample, a table's entry). It is
 * far enough that a cache miss arrives while the entries between are
 * handled. It is near enough that the lines are still in the cache when
 * used.
 */
#define PREFETCH_AHEAD 4

/* Ask for every cache line of [p, p + len), to be read or (write) written. */
static inline void prefetch_lines(const void *p, size_t len, bool write)
{
	for (size_t o = 0; o < len; o += 64)
		if (write)
			__builtin_prefetch((const char *)p + o, 1);
		else
			__builtin_prefetch((const char *)p + o, 0);
}

/* The release (the Makefile may set it). */
#ifndef CGS_VERSION
#define CGS_VERSION "0.1.0"
#endif

enum {
	CGS_EXIT_OK = 0,
	CGS_EXIT_FAIL = 1,   /* a check failed (cgsched check) */
	CGS_EXIT_USAGE = 2,  /* bad input, missing privilege or kernel feature */
};

/* "cgsched: error: ..." on stderr, one line. */
void cgs_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cgs_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Set by -v: libbpf's messages and debug notes go to stderr. */
extern bool cgs_verbose;
void cgs_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Give the heap's free blocks back to the kernel once a BPF object is
 * loaded. By then libbpf has freed its parse of the kernel's BTF, which
 * takes megabytes. main.c sets the heap's thresholds so that refreshes
 * keep their blocks, and those would keep the BTF's too
 * (docs/performance.md, "Why the code is as it is").
 */
void heap_trim(void);

/*
 * Parsers return 0 or -EINVAL / -ERANGE and never accept trailing junk,
 * an empty string, or a sign where none makes sense.
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * A plain decimal at the start of s ("12", "0.5", ".5", "3."): no sign,
 * exponent, hex, "inf" or blanks, which strtod would all take. *end is where
 * it stops; the caller decides what may follow.
 */
int parse_decimal(const char *s, double *v, const char **end);
/* "65536", "512K", "64M", "1G" (powers of 1024, "KB"/"MiB" too): bytes. 0 or -EINVAL. */
int parse_size(const char *s, uint64_t *out);
/* "1.5", "250ms", "2s", "100us", "3m": to nanoseconds; bare numbers use def_unit_ns. */
int parse_duration_ns(const char *s, uint64_t def_unit_ns, uint64_t *out);

/* 0 when root; else the one error line ("must run as root (why)") and CGS_EXIT_USAGE. */
int require_root(const char *why);

/* Monotonic time main() began: start-up is measured from it. */
extern uint64_t cgs_t0_ns;
/* CPU time (user + system) of this process in ns. */
/*
 * A directory stream over fd, which it takes: on failure fd is closed and
 * errno kept. A negative fd (a failed open) gives NULL with errno as it was.
 */
DIR *dir_from_fd(int fd);
/* path below dirfd (AT_FDCWD: the working directory) as a stream; flags such as O_NOFOLLOW are added. */
DIR *dir_open_at(int dirfd, const char *path, int flags);

uint64_t cpu_ns(void);
/* CPU time of the calling thread. */
uint64_t thread_cpu_ns(void);

/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(). */
uint64_t now_ns(void);
/* qsort's comparison of uint64_t, ascending. */
int u64_cmp(const void *a, const void *b);
/* The pct-th percentile of sorted[0..n) by nearest rank: the least value with pct % at or below it. */
uint64_t u64_rank(const uint64_t *sorted, size_t n, unsigned pct);

/*
 * Watch a process end (record --attach --pid) through a pidfd. A pidfd is
 * readable once the process has exited, zombie or reaped; kill(pid, 0)
 * would still succeed on an unreaped zombie. pid_watch returns the fd, or
 * -1 with errno ESRCH if there is no such process. It returns -2 where the
 * kernel refuses pidfds (seccomp, old kernels); pid_gone then falls back
 * to kill().
 */
int pid_watch(long pid);
bool pid_gone(int fd, long pid);

/*
 * Read a whole input file (limits file, report) at once, NUL-terminated.
 * It must be a regular file of at most max bytes, since a FIFO or
 * /dev/zero would never end. Else returns -errno, and *why says what was
 * wrong ("not a regular file", "too large", strerror).
 */
int read_file_bounded(const char *path, size_t max, char **out, size_t *len, const char **why);
/* A file this user owns and no group or other may write: fit to act on with its rights. */
struct stat;
bool stat_ours_alone(const struct stat *st);
/* The same as read_file_bounded, for a file acted on with this user's rights (a journal): no symlink, ours, writable by us alone (-EPERM). */
int read_file_trusted(const char *path, size_t max, char **out, size_t *len, const char **why);
/*
 * The same, through symbolic links (a Kubernetes ConfigMap mounts files
 * through them), for a config file acted on with this user's rights (a
 * limits file, a web config): the file reached must be ours alone.
 */
int read_file_config(const char *path, size_t max, char **out, size_t *len, const char **why);

/*
 * Check a file that cgsched writes beside its target and renames over it
 * at the end (lib/atomic_file.h: record -o, --timeline, check --junit). The
 * name must not be a directory, and the writer's temporary name must be
 * one that can be made there. Check it before anything runs, so a
 * bad one costs nothing. Returns 0, or -errno with *why saying what was
 * wrong.
 */
int output_path_check(const char *path, const char **why);

/*
 * Names from the cgroup tree are anyone's bytes (a delegated user names
 * their own cgroups). For text: control bytes, C1 controls, backslash and
 * broken UTF-8 as \xNN, so no name can move a terminal's cursor or forge a
 * log line. For JSON: valid UTF-8, each broken byte as U+FFFD. Both return
 * buf (cut at a character when full), or NULL for NULL.
 */
const char *text_escape(const char *s, char *buf, size_t len);
const char *utf8_valid(const char *s, char *buf, size_t len);

/* "812us", "3.27ms", "1.50s": three significant digits, for tables. */
char *fmt_duration(char *buf, size_t len, uint64_t ns);

#endif
