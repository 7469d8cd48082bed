// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cputime CMD [ARGS...]: run CMD and print "WALL_US CPU_US": its wall time,
 * and the CPU time (user + system) of CMD and of every descendant waited
 * for. For the storm benchmark: a BPF program on sched_switch or
 * sched_wakeup runs in the context of a storm task (the waker, or the task
 * switched to), so its cost lands in this CPU time, while the idle gaps and
 * run-queue shuffles of 32 tasks on a few CPUs, which make the wall time
 * noisy, do not.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long us(struct timeval t)
{
	return t.tv_sec * 1000000LL + t.tv_usec;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: cputime CMD [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("cputime: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("cputime: waitpid");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	getrusage(RUSAGE_CHILDREN, &ru);
	printf("%lld %lld\n", ((b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec) / 1000,
	       us(ru.ru_utime) + us(ru.ru_stime));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
