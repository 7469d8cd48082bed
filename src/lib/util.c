// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ctype.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <fcntl.h>

#include "lib/atomic_file.h"
#include "lib/util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif

bool cgs_verbose;
uint64_t cgs_t0_ns;

static const char *escape(const char *s, char *buf, size_t len, bool backslash);

/*
 * Print one line, whatever the message quotes. A newline or terminal
 * escape in a path or value comes out as \xNN, so no input can split the
 * line or move the cursor. Backslashes stay, because messages quote
 * commands with them.
 */
static void vsay(const char *tag, const char *fmt, va_list ap)
{
	char msg[6144], esc[4 * sizeof(msg)]; /* on the stack: the exporter's threads report too */

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "cgsched: %s%s\n", tag, escape(msg, esc, sizeof(esc), false));
}

void cgs_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("error: ", fmt, ap);
	va_end(ap);
}

void cgs_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

void cgs_debug(const char *fmt, ...)
{
	va_list ap;

	if (!cgs_verbose)
		return;
	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static const struct {
	const char *suffix;
	double ns;
} units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
};

int parse_decimal(const char *s, double *v, const char **end)
{
	const char *p = s;
	size_t digits = 0;
	char buf[64];

	if (!s)
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	/* strtod alone would take hex, exponents, "inf", "nan" and leading blanks. */
	if (!digits || (size_t)(p - s) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, p - s);
	buf[p - s] = 0;
	*v = strtod(buf, NULL);
	*end = p;
	return isfinite(*v) ? 0 : -ERANGE;
}

int parse_duration_ns(const char *s, uint64_t def_unit_ns, uint64_t *out)
{
	const char *end;
	double v, mult = def_unit_ns;

	if (parse_decimal(s, &v, &end))
		return -EINVAL;
	if (*end) {
		size_t i;
		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (!strcmp(end, units[i].suffix))
				break;
		if (i == ARRAY_SIZE(units))
			return -EINVAL;
		mult = units[i].ns;
	}
	v *= mult;
	if (v > 9.2e18)
		return -ERANGE;
	if (v > 0 && v < 0.5)
		return -ERANGE; /* below a nanosecond: rounds to nothing */
	*out = (uint64_t)llround(v);
	return 0;
}

int require_root(const char *why)
{
	if (geteuid() == 0)
		return 0;
	cgs_err("must run as root (%s)", why);
	return CGS_EXIT_USAGE;
}

uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t u64_rank(const uint64_t *sorted, size_t n, unsigned pct)
{
	size_t r = (n * pct + 99) / 100;

	return sorted[r ? r - 1 : 0];
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

char *fmt_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		double div;
		const char *unit;
	} steps[] = { { 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" } };
	int i = 0;

	/* Move up a unit when rounding would print 1000 of this one. */
	while (i < 3 && ns >= steps[i + 1].div * 0.9995)
		i++;
	double v = ns / steps[i].div;
	if (i == 0 || v >= 100)
		snprintf(buf, len, "%.0f%s", v, steps[i].unit);
	else if (v >= 10)
		snprintf(buf, len, "%.1f%s", v, steps[i].unit);
	else
		snprintf(buf, len, "%.2f%s", v, steps[i].unit);
	return buf;
}

int pid_watch(long pid)
{
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);

	if (fd >= 0)
		return fd;
	if (errno == ESRCH)
		return -1;
	return kill((pid_t)pid, 0) && errno == ESRCH ? -1 : -2;
}

bool pid_gone(int fd, long pid)
{
	if (fd >= 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		return poll(&p, 1, 0) > 0;
	}
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

bool stat_ours_alone(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* What read_bounded checks beyond a bounded regular file. */
enum { READ_NOFOLLOW = 1, READ_OURS = 2 };

static int read_bounded(const char *path, size_t max, int how, char **out, size_t *len, const char **why)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	bool trusted = how & READ_OURS;
	int err = 0, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (how & READ_NOFOLLOW ? O_NOFOLLOW : 0));

	*out = NULL;
	if (fd < 0) {
		*why = strerror(errno);
		return -errno;
	}
	/* A FIFO, /dev/zero or /dev/urandom would never end, or never be whole. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		err = -EINVAL;
		goto out;
	}
	/* What is acted on as root: written by us alone, and only we may change it. */
	if (trusted && !stat_ours_alone(&st)) {
		*why = st.st_uid != geteuid() ? "not owned by this user: refused, as it would be acted on with this user's rights"
					      : "writable by others: refused, as anyone could have changed it";
		err = -EPERM;
		goto out;
	}
	if ((uint64_t)st.st_size > max) {
		*why = "too large";
		err = -EFBIG;
		goto out;
	}
	if (!(buf = malloc(max + 1))) {
		*why = strerror(ENOMEM);
		err = -ENOMEM;
		goto out;
	}
	/* Up to one byte past the limit: a file that grew meanwhile is refused too. */
	for (;;) {
		ssize_t r = read(fd, buf + n, max + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*why = strerror(errno);
			err = -EIO;
			goto out;
		}
		if (r == 0)
			break;
		n += r;
		if (n > max) {
			*why = "too large";
			err = -EFBIG;
			goto out;
		}
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return err;
}

int read_file_bounded(const char *path, size_t max, char **out, size_t *len, const char **why)
{
	return read_bounded(path, max, 0, out, len, why);
}

int read_file_trusted(const char *path, size_t max, char **out, size_t *len, const char **why)
{
	return read_bounded(path, max, READ_NOFOLLOW | READ_OURS, out, len, why);
}

int read_file_config(const char *path, size_t max, char **out, size_t *len, const char **why)
{
	return read_bounded(path, max, READ_OURS, out, len, why);
}

int output_path_check(const char *path, const char **why)
{
	struct stat st;
	int err;

	if (!*path || path[strlen(path) - 1] == '/') {
		*why = !*path ? "an empty name" : "a directory, not a file";
		return -EINVAL;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		*why = "a directory, not a file";
		return -EISDIR;
	}
	/*
	 * The writer's own temporary name, made and removed: it is longer than
	 * path, so a name only it makes too long is refused now. A made file
	 * also beats access(), which passes root everywhere (even /proc, where
	 * nothing can be made) and trusts what NFS says.
	 */
	if ((err = atomic_file_check(path)) == -ENAMETOOLONG) {
		static char msg[160];

		snprintf(msg, sizeof(msg), "%s: it is written first as .NAME%sXXXXXX beside it, %zu bytes longer; "
			 "give a shorter name", strerror(-err), ATOMIC_FILE_TAG, ATOMIC_FILE_EXTRA);
		*why = msg;
	} else if (err) {
		*why = strerror(-err);
	}
	return err;
}

/* The length of the valid UTF-8 sequence at s (1-4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f))
			return 0; /* overlong, or a UTF-16 surrogate */
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

static const char *escape(const char *s, char *buf, size_t len, bool backslash)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!s)
		return NULL;
	/* Room for the longest step (8 bytes) and the NUL. */
	while (*p && o + 9 < len) {
		size_t k = utf8_len(p);
		/* Control bytes (C0, DEL) and broken UTF-8 as \xNN: nothing reaches a terminal raw. */
		if (k == 1 && *p == '\\' && backslash) {
			o += snprintf(buf + o, len - o, "\\\\");
			p++;
		} else if ((k == 1 && (*p < 0x20 || *p == 0x7f)) || k == 0) {
			o += snprintf(buf + o, len - o, "\\x%02x", *p);
			p++;
		} else if (k == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			/* C1 controls (U+0080-U+009F): some terminals act on them. */
			o += snprintf(buf + o, len - o, "\\x%02x\\x%02x", p[0], p[1]);
			p += 2;
		} else {
			if (o + k >= len)
				break;
			memcpy(buf + o, p, k);
			o += k;
			p += k;
		}
	}
	buf[o < len ? o : len - 1] = 0;
	return buf;
}

const char *text_escape(const char *s, char *buf, size_t len)
{
	return escape(s, buf, len, true);
}

const char *utf8_valid(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!s)
		return NULL;
	while (*p && o + 4 < len) {
		size_t k = utf8_len(p);
		if (!k) { /* U+FFFD in place of each broken byte */
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		} else {
			memcpy(buf + o, p, k);
			o += k;
			p += k;
		}
	}
	buf[o] = 0;
	return buf;
}

int grow_array(void *arrayp, size_t *cap, size_t n, size_t size, size_t first, size_t max)
{
	void *a, *na;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : first;
	if (max && c > max)
		c = max; /* the bound itself, not the power of two below it */
	if (c <= n || c > SIZE_MAX / size)
		return -ENOMEM;
	/* Through memcpy: arrayp is a T **, which a void ** may not alias. */
	memcpy(&a, arrayp, sizeof(a));
	if (!(na = realloc(a, c * size)))
		return -ENOMEM;
	memcpy(arrayp, &na, sizeof(na));
	*cap = c;
	return 0;
}

int grow_room(void *arrayp, size_t *cap, size_t need, size_t size)
{
	void *a, *na;
	size_t c;

	if (need <= *cap)
		return 0;
	if (need > (SIZE_MAX / size - 16) / 5 * 4) /* need + need / 4 + 16 elements fit */
		return -ENOMEM;
	c = need + need / 4 + 16;
	memcpy(&a, arrayp, sizeof(a));
	if (!(na = realloc(a, c * size)))
		return -ENOMEM;
	memcpy(arrayp, &na, sizeof(na));
	*cap = c;
	return 0;
}

void heap_trim(void)
{
	malloc_trim(0);
}

int parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = { { "", 0 }, { "K", 10 }, { "KB", 10 }, { "KiB", 10 }, { "M", 20 }, { "MB", 20 },
		      { "MiB", 20 }, { "G", 30 }, { "GB", 30 }, { "GiB", 30 } };
	const char *end;
	double v;

	if (parse_decimal(s, &v, &end))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		double b = v * (double)(1ULL << units[i].shift);
		if (b >= 18e18)
			return -EINVAL;
		*out = (uint64_t)b;
		return 0;
	}
	return -EINVAL;
}

DIR *dir_from_fd(int fd)
{
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	int err = errno;

	if (!d && fd >= 0) {
		close(fd);
		errno = err;
	}
	return d;
}

DIR *dir_open_at(int dirfd, const char *path, int flags)
{
	return dir_from_fd(openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags));
}
