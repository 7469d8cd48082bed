// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Tell each CPU what it runs (seed.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "trace/seed.h"
#include "lib/util.h"

/*
 * Where the kernel cannot run seed_cpu on a given CPU (before v5.10), a
 * thread pinned to each CPU sleeps 1 ms, so every CPU switches once. This
 * is approximate: what ran before that switch is not counted, and under
 * load the switch can come late.
 */
static void *nudge(void *arg)
{
	cpu_set_t set;
	long cpu = (long)arg;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!sched_setaffinity(0, sizeof(set), &set))
		usleep(1000);
	return NULL;
}

static void nudge_cpus(int ncpus)
{
	pthread_t th[1024];
	int n = ncpus < 1024 ? ncpus : 1024, started = 0, policy;
	struct sched_param sp;
	pthread_attr_t attr;

	/*
	 * Run at this thread's policy (--priority). That policy is set with
	 * SCHED_RESET_ON_FORK, so it is not inherited. An ordinary nudge thread
	 * would wait behind the very load a real-time observer is there to see.
	 */
	pthread_attr_init(&attr);
	if (!pthread_getschedparam(pthread_self(), &policy, &sp) && policy != SCHED_OTHER) {
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, policy);
		pthread_attr_setschedparam(&attr, &sp);
	}
	for (long i = 0; i < n; i++)
		if (!pthread_create(&th[started], &attr, nudge, (void *)i))
			started++;
	pthread_attr_destroy(&attr);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

int seed_one(int fd, int cpu)
{
	__u64 args[6] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

	return bpf_prog_test_run_opts(fd, &opts) ? -errno : 0;
}

/*
 * Tell every CPU what it is running now (sched.bpf.c seed_cpu). A task
 * already running when tracing began is then counted from that moment,
 * whatever the scheduler does next. Returns "ipi", or "nudge" after the
 * fallback where the kernel cannot run a program on a chosen CPU.
 */
const char *seed_cpus(struct tracer *t)
{
	int fd = bpf_program__fd(t->skel->progs.seed_cpu), ran = 0, offline = 0, err = 0;

	for (int cpu = 0; cpu < t->ncpus && fd >= 0; cpu++) {
		int e = seed_one(fd, cpu);
		if (!e)
			ran++;
		else if (e == -ENXIO)
			offline++; /* runs nothing until it comes online, and then switches */
		else if (!err)
			err = e;
	}
	if (ran && !err) {
		cgs_debug("every CPU told what it runs (%d, %d offline; %u not switched since the attach)", ran,
			  offline, t->skel->bss->seeded_cpus);
		return "ipi";
	}
	cgs_debug("cannot run a program on a chosen CPU (%s): a thread nudges each CPU instead",
		  strerror(err ? -err : ENOENT));
	nudge_cpus(t->ncpus);
	return "nudge";
}

/*
 * Tell each CPU again what it runs (seed_cpu). If the kernel did not trace
 * a CPU's last switch, its running slice would be credited to the task
 * before (sched.bpf.c unseen_switch). Each CPU costs an IPI. record calls
 * this at its last read. Other reads call it only after the kernel was
 * seen to skip the tracepoint, so isolated CPUs are otherwise left alone.
 */
void tracer_sync_cpus(struct tracer *t)
{
	if (strcmp(t->seed, "ipi"))
		return;
	/* The round the CPUs' answers belong to (cpu_cur.ran_round; snapshot.c take_running). */
	__atomic_add_fetch(&t->skel->bss->sync_round, 1, __ATOMIC_SEQ_CST);
	for (int cpu = 0, fd = bpf_program__fd(t->skel->progs.seed_cpu); cpu < t->ncpus; cpu++)
		seed_one(fd, cpu);
}
