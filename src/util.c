// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
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

#include "util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif

bool cgs_verbose;
uint64_t cgs_t0_ns;

static void vsay(const char *tag, const char *fmt, va_list ap)
{
	fprintf(stderr, "cgsched: %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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

int parse_duration_ns(const char *s, uint64_t def_unit_ns, uint64_t *out)
{
	char *end;
	double v, mult = def_unit_ns;

	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -EINVAL;
	if (*end) {
		size_t i;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].suffix))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		mult = units[i].ns;
	}
	v *= mult;
	if (v > 9.2e18)
		return -ERANGE;
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
