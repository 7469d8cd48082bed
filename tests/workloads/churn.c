// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cgroups that come and go, as containers do (make soak):
 *
 *   churn PARENT_DIR PER_MINUTE SECONDS LOG
 *
 * For SECONDS, PER_MINUTE times a minute evenly spaced: make the cgroup
 * PARENT_DIR/cN, start a child that moves itself in and runs ~1 ms of CPU,
 * wait for it, remove the cgroup (retrying while the kernel still counts
 * the dead child in it); never faster: a loop that fell behind skips ahead
 * rather than catch up in a burst. LOG gets one line per cgroup:
 *   N CREATED_S REMOVED_S          (CLOCK_REALTIME seconds)
 * and the last line says how many were made and how far behind the rate
 * the loop fell. Exits 1 if a cgroup could not be made or removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

static double now_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void burn_ms(double ms)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + ms / 1e3;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

static int one(const char *parent, long n, FILE *log)
{
	char dir[4096], procs[4200];
	double t0 = now_s(CLOCK_REALTIME);
	pid_t pid;
	int st;

	snprintf(dir, sizeof(dir), "%s/c%ld", parent, n);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "churn: mkdir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(procs, O_WRONLY);
		if (fd < 0 || dprintf(fd, "%d\n", getpid()) < 0)
			_exit(1);
		close(fd);
		burn_ms(1);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	/* The dead child leaves the cgroup a moment after waitpid returns. */
	for (int i = 0; rmdir(dir); i++) {
		if (errno != EBUSY || i == 500) {
			fprintf(stderr, "churn: rmdir %s: %s\n", dir, strerror(errno));
			return -1;
		}
		usleep(2000);
	}
	fprintf(log, "%ld %.3f %.3f\n", n, t0, now_s(CLOCK_REALTIME));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: churn PARENT_DIR PER_MINUTE SECONDS LOG\n");
		return 2;
	}
	double per_s = atof(argv[2]) / 60, secs = atof(argv[3]);
	FILE *log = fopen(argv[4], "w");
	double start = now_s(CLOCK_MONOTONIC), late = 0;
	long n = 0;

	if (!log || per_s <= 0 || secs <= 0)
		return 2;
	setvbuf(log, NULL, _IOLBF, 0);
	long skipped = 0;
	while (now_s(CLOCK_MONOTONIC) - start < secs) {
		double due = start + (n + skipped) / per_s, t = now_s(CLOCK_MONOTONIC);
		if (due > t) {
			usleep((useconds_t)((due - t) * 1e6));
		} else if (t - due > 1) {
			/* Fell behind (a starved CPU): never catch up in a burst, the rate is a ceiling. */
			if (t - due > late)
				late = t - due;
			skipped += (long)((t - due) * per_s);
		}
		if (one(argv[1], n, log))
			return 1;
		n++;
	}
	fprintf(log, "# made %ld in %.0f s (%.0f a minute); at most %.2f s behind, %ld skipped for it\n", n,
		now_s(CLOCK_MONOTONIC) - start, n * 60 / (now_s(CLOCK_MONOTONIC) - start), late, skipped);
	return 0;
}
