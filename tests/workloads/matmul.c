// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A multithreaded dense matrix multiply, the seed experiment's workload
 * (cgroup v2, cpu.max 40%): THREADS threads split the rows of C = A x B and
 * repeat until the process has used SECONDS of CPU time in all, or, with
 * "wall", for SECONDS of wall time (whole bandwidth periods: no end effect).
 *   matmul THREADS SECONDS [cpu|wall] [N]
 * Prints: cpu_ns=N wall_ns=N rounds=N
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int n = 256, threads;
static double *a, *b, *c, need, wall_end;
static int by_wall;
static volatile int stop;

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	long id = (long)arg, rounds = 0;

	while (!stop) {
		for (int i = id; i < n && !stop; i += threads) {
			for (int j = 0; j < n; j++) {
				double s = 0;
				for (int k = 0; k < n; k++)
					s += a[i * n + k] * b[k * n + j];
				c[i * n + j] = s;
			}
			/* Every row, not every round: a round can take longer than a period. */
			if (by_wall ? clock_s(CLOCK_MONOTONIC) >= wall_end : clock_s(CLOCK_PROCESS_CPUTIME_ID) >= need)
				stop = 1;
		}
		rounds++;
	}
	return (void *)rounds;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	long rounds = 0;

	if (argc < 3 || (threads = atoi(argv[1])) < 1 || threads > 64 || (need = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: matmul THREADS SECONDS [cpu|wall] [N]\n");
		return 2;
	}
	by_wall = argc > 3 && argv[3][0] == 'w';
	if (argc > 4)
		n = atoi(argv[4]);
	a = malloc(sizeof(double) * n * n);
	b = malloc(sizeof(double) * n * n);
	c = malloc(sizeof(double) * n * n);
	srand(1);
	for (int i = 0; i < n * n; i++) {
		a[i] = rand() / (double)RAND_MAX;
		b[i] = rand() / (double)RAND_MAX;
	}
	double w0 = clock_s(CLOCK_MONOTONIC);
	wall_end = w0 + need;
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < threads; i++) {
		void *r;
		pthread_join(t[i], &r);
		rounds += (long)r;
	}
	printf("cpu_ns=%.0f wall_ns=%.0f rounds=%ld\n", clock_s(CLOCK_PROCESS_CPUTIME_ID) * 1e9,
	       (clock_s(CLOCK_MONOTONIC) - w0) * 1e9, rounds);
	return 0;
}
