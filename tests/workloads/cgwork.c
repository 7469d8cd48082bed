// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test workloads with known behaviour. Each prints, at the end, the kernel's
 * own account of its threads from /proc/thread-self/schedstat:
 *   oncpu_ns=N rundelay_ns=N slices=N wall_ns=N start_ns=N
 * (start_ns: the CPU time main() began with, its exec and loading)
 *
 *   cgwork burn THREADS SECONDS [CPU]   busy threads for SECONDS of wall time
 *        (CGWORK_ENTER, CGWORK_LEAVE: see burn_window)
 *   cgwork spin SECONDS_OF_CPU          one thread until it has used that much CPU
 *        (CGWORK_ENTER, CGWORK_LEAVE: as burn's, see burn_window)
 *   cgwork pingpong ROUNDS CPU PROCS_A PROCS_B SPIN_US
 *        two processes, each first moves itself (cgroup.procs path), then they
 *        pass a byte back and forth over pipes on one CPU, each spinning
 *        SPIN_US after each write so the woken side can preempt it
 *   cgwork duel SECONDS CPU PROCS_A PROCS_B
 *        two processes on one CPU, A in PROCS_A and B in PROCS_B; for the first
 *        half A burns while B sleeps 1 ms at a time, then the roles swap: a
 *        sleeper waking up preempts the burner on CFS and EEVDF alike, so each
 *        cgroup preempts the other
 *   cgwork wake SECONDS PERIOD_US      sleep/wake loop (wake-up storms)
 *   cgwork rtduty SECONDS CPU RUN_US SLEEP_US
 *        one SCHED_FIFO thread on CPU: runs RUN_US, sleeps SLEEP_US, in turn
 *   cgwork duty SECONDS CPU RUN_US SLEEP_US
 *        two threads on one CPU for SECONDS: one burns, the other runs RUN_US
 *        and sleeps SLEEP_US in turn, so that a quota often runs out as a
 *        task goes to sleep with another queued behind it
 *   cgwork pulse SECONDS CPU PERIOD_US WORK_US [EVERY BURST_US]
 *        one thread on CPU: at the start of each PERIOD_US (an absolute
 *        schedule), WORK_US of its own CPU time (throttled or not), and
 *        every EVERY-th period BURST_US instead. The CPU time of each
 *        sleep and wake-up counts toward the next work (work_due), so the
 *        kernel charges WORK_US a period on average; a period whose work ran
 *        past its end starts the next at once. On stderr: its cycles, how
 *        many began late, woke early, and the most wall time over CPU time
 *        in 11 cycles in a row (over_ns)
 *   cgwork barrier SECONDS THREADS CYCLE_US WORK_US
 *        THREADS threads that each do WORK_US of CPU time (with the
 *        sleep and wake-up before it, as pulse's), then meet at a
 *        barrier, every CYCLE_US on an absolute schedule (a cycle whose
 *        work ran past the next one's start waits for the one after: at
 *        most two cycles' work begins in any two cycles' time)
 *   cgwork fib SECONDS CPU THREADS PERIOD_US WORK_US
 *        fibtest's many light threads (the testcase of the CFS slice-expiry
 *        fix): THREADS threads on CPU, each computing Fibonacci numbers for
 *        WORK_US of its CPU time at the start of each PERIOD_US (one
 *        absolute schedule for all); work that ran past the next start
 *        runs the next at once
 *   cgwork poisson SECONDS CPU THREADS RATE_HZ WORK_US
 *        THREADS threads on CPU, each with jobs of WORK_US of CPU time that
 *        arrive at random (Poisson, RATE_HZ a thread; the same times every
 *        run); a job that arrives while one runs waits for it
 *   cgwork selfmove FROM TO SECONDS CPU
 *        pinned to CPU, move itself into FROM (cgroup.procs paths), burn 0.3 s,
 *        into TO, burn SECONDS: each move while it runs; prints its CPU time in
 *        each, from_ns=N to_ns=N
 *   cgwork watchmove FROM SECONDS CPU [thread]
 *        one thread pinned to CPU moves itself into FROM, burns SECONDS,
 *        polling its cgroups every ms; prints its CPU time in FROM before
 *        the first change and after it, before_ns=N after_ns=N (another
 *        process moved it while it ran). With "thread", the process enters
 *        FROM and a second thread burns and polls while the first waits for
 *        it: a move of the process moves a thread that is not its leader
 *   cgwork fleet DIR N SECONDS PERIOD_MS
 *        make DIR/g0..g(N-1) (cgroup directories), one process in each that
 *        wakes every PERIOD_MS for SECONDS; prints "ready" when all are in
 *   cgwork asuser UID CMD ARGS...      run CMD with uid and gid UID, no groups
 *                                      (busybox's setpriv cannot change uid)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct acct {
	unsigned long long oncpu, delay, slices;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct acct total;

static unsigned long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Work until this thread's CPU clock reaches *due + ns, or until end
 * (monotonic), and move *due on by ns. *due starts at the thread's CPU
 * clock. The CPU time a thread spends between two works (its sleep, its
 * wake-up) then counts toward the next work, so the kernel charges ns a
 * work however long the wake-ups take: a guest's emulated ones cost up to a
 * millisecond and vary with the host's load. A wake-up that took longer
 * than a work leaves the rest owed to the works after it. Returns the
 * thread's CPU time when the work ended.
 */
static unsigned long long work_due(unsigned long long *due, unsigned long long ns, unsigned long long end)
{
	unsigned long long now;

	*due += ns;
	while ((now = thread_cpu_ns()) < *due && mono_ns() < end)
		;
	return now;
}

static void add_self(void)
{
	struct acct a = {};
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	if (!f || fscanf(f, "%llu %llu %llu", &a.oncpu, &a.delay, &a.slices) != 3) {
		perror("schedstat");
		exit(1);
	}
	fclose(f);
	pthread_mutex_lock(&lock);
	total.oncpu += a.oncpu;
	total.delay += a.delay;
	total.slices += a.slices;
	pthread_mutex_unlock(&lock);
}

static void pin(int cpu)
{
	cpu_set_t s;
	if (cpu < 0)
		return;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

/* The CPU time this thread had used when main began: its exec and the loader's work (and the forker's after fork). */
static unsigned long long start_cpu_ns;

static void report(unsigned long long wall)
{
	printf("oncpu_ns=%llu rundelay_ns=%llu slices=%llu wall_ns=%llu start_ns=%llu\n", total.oncpu, total.delay,
	       total.slices, wall, start_cpu_ns);
	fflush(stdout);
}

static double secs;
static volatile unsigned long long sink;
static void enter_pid(const char *procs, pid_t pid);

static void *burner(void *arg)
{
	unsigned long long end = mono_ns() + (unsigned long long)(secs * 1e9);
	while (mono_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
	add_self();
	return NULL;
}

static int burn(int threads, int cpu)
{
	pthread_t t[256];
	unsigned long long t0 = mono_ns();
	if (threads < 1 || threads > 256)
		return 2;
	pin(cpu);
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, burner, NULL);
	burner(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	report(mono_ns() - t0);
	return 0;
}

/*
 * burn with CGWORK_ENTER=PROCS (and CGWORK_LEAVE=PROCS): the figure printed
 * is exactly what the threads did inside the cgroup. A task that moves
 * itself is running when it moves, and the move reschedules it: on a
 * shared CPU it then waits a whole slice, in the new cgroup, before it can
 * read its own schedstat (a tracer counts that wait in the cgroup, a
 * figure read after it does not: 3.8 ms of 1 s). So a controller (the
 * parent) moves the workload only while every thread of it sleeps on a
 * pipe, and reads their schedstat then: nothing runs or waits between the
 * move and the read.
 */
/*
 * Asleep: every thread off the run queue, so that nothing of it runs or
 * waits until the controller wakes it. State S alone does not say so: it
 * reads S from the moment a thread decides to sleep, and the thread may be
 * queued still: preempted before it blocked, or kept queued as "delayed"
 * (EEVDF, 6.12) until its CPU next picks. /proc's wchan is nonzero only for
 * a task off the run queue (get_wchan checks on_rq since 5.16); before that
 * it says only "not running" (and without frame pointers, as in Debian's
 * 5.10, it is 0 for every task: wchan_works finds out once). Besides, two
 * polls in a row with every thread's schedstat unchanged (a thread queued on
 * its otherwise idle CPU runs within the poll's 1 ms). CGWORK_DEBUG says on
 * stderr how many thread reads saw S while on a run queue.
 */
static unsigned long long s_not_off_rq;
static int wchan_ok = -1;

/* The task of this /proc stat file sleeps (state S, after the comm's ')'). */
static int stat_says_asleep(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return 0;
	ok = fgets(buf, sizeof(buf), f) && strrchr(buf, ')') && strrchr(buf, ')')[2] == 'S';
	fclose(f);
	return ok;
}

static int wchan_works(void)
{
	char path[64], buf[128] = "";
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	if (pid < 0)
		return 0;
	int ok = 0, asleep = 0;
	/* Bounded: 2 s of 1 ms polls for the child to say S (it has called
	 * pause()), then 0.2 s for its wchan. Polling wchan alone for the whole
	 * 2 s cost every cgwork 2-3 s on a kernel without it (5.10 in the
	 * emulated guest), where the child is asleep within milliseconds. */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (int tries = 0; tries < 2000 && !(asleep = stat_says_asleep(path)); tries++)
		usleep(1000);
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	for (int tries = 0; asleep && tries < 200 && !ok; tries++) {
		FILE *f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f) && strcmp(buf, "0") != 0)
			ok = 1;
		if (f)
			fclose(f);
		if (!ok)
			usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return ok;
}

static int thread_asleep(pid_t pid, const char *tid, struct acct *a)
{
	char path[320], buf[512];
	FILE *f;
	int ok = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid, tid);
	ok = stat_says_asleep(path);
	snprintf(path, sizeof(path), "/proc/%d/task/%s/wchan", pid, tid);
	if (ok && wchan_ok && (f = fopen(path, "r"))) {
		ok = fgets(buf, sizeof(buf), f) && strcmp(buf, "0") != 0;
		fclose(f);
		if (!ok)
			s_not_off_rq++;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", pid, tid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%llu %llu %llu", &a->oncpu, &a->delay, &a->slices) != 3)
		ok = 0;
	fclose(f);
	return ok;
}

static int wait_asleep(pid_t pid)
{
	char path[320];
	/* Every thread's schedstat in the last poll that found all asleep, folded. */
	unsigned long long last = 0, polls = 0;
	s_not_off_rq = 0;
	if (wchan_ok < 0)
		wchan_ok = wchan_works();
	/* Bounded: 20 s of 1 ms polls, for the slow emulated guest. */
	for (int tries = 0; tries < 20000; tries++, polls++) {
		int all = 1, any = 0;
		unsigned long long sig = 0;
		DIR *d;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		if (!(d = opendir(path)))
			return -1;
		struct dirent *e;
		while ((e = readdir(d))) {
			struct acct a = { 0 };
			if (e->d_name[0] == '.')
				continue;
			if (!thread_asleep(pid, e->d_name, &a))
				all = 0;
			/* Order-sensitive fold: a change in any thread changes it. */
			sig = sig * 1000003 + a.oncpu * 31 + a.delay * 7 + a.slices + strtoull(e->d_name, NULL, 10);
			any = 1;
		}
		closedir(d);
		if (all && any && sig == last) {
			if (getenv("CGWORK_DEBUG"))
				fprintf(stderr, "cgwork: asleep after %llu polls; %llu thread reads in S yet on a run queue%s\n",
					polls + 1, s_not_off_rq, wchan_ok ? "" : " (unknown: no wchan)");
			return 0;
		}
		last = all && any ? sig : 0;
		usleep(1000);
	}
	return -1;
}

static struct acct read_tasks(pid_t pid)
{
	char path[320];
	struct acct sum = { 0 };
	DIR *d;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(d = opendir(path)))
		return sum;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct acct a = { 0 };
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", pid, e->d_name);
		FILE *f = fopen(path, "r");
		if (f && fscanf(f, "%llu %llu %llu", &a.oncpu, &a.delay, &a.slices) == 3) {
			if (getenv("CGWORK_DEBUG"))
				fprintf(stderr, "cgwork: thread %s delay %llu slices %llu\n", e->d_name, a.delay, a.slices);
			sum.oncpu += a.oncpu;
			sum.delay += a.delay;
			sum.slices += a.slices;
		}
		if (f)
			fclose(f);
	}
	closedir(d);
	return sum;
}

static pthread_barrier_t finished, release;
/* spin's: each worker runs until it has used this much CPU (0: burn's wall time). */
static unsigned long long window_cpu_ns;

static void *window_burner(void *arg)
{
	unsigned long long end = *(unsigned long long *)arg;
	if (window_cpu_ns)
		end = thread_cpu_ns() + window_cpu_ns;
	while ((window_cpu_ns ? thread_cpu_ns() : mono_ns()) < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
	pthread_barrier_wait(&finished);
	pthread_barrier_wait(&release); /* asleep while the controller moves and reads */
	return NULL;
}

static int burn_window(int threads, int cpu, const char *in, const char *out)
{
	int go[2], fin[2], doneb[2];
	char c = 0;
	if (threads < 1 || threads > 256 || pipe(go) || pipe(fin) || pipe(doneb))
		return 2;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		pthread_t t[256];
		pin(cpu);
		if (read(go[0], &c, 1) != 1) /* asleep: moved in here */
			_exit(1);
		unsigned long long end = mono_ns() + (unsigned long long)(secs * 1e9);
		pthread_barrier_init(&finished, NULL, threads + 1);
		pthread_barrier_init(&release, NULL, threads + 1);
		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, window_burner, &end);
		pthread_barrier_wait(&finished);
		if (write(doneb[1], &c, 1) != 1 || read(fin[0], &c, 1) != 1) /* asleep: moved out here */
			_exit(1);
		pthread_barrier_wait(&release);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
		_exit(0);
	}
	struct acct a0, a1;
	if (wait_asleep(pid)) {
		fprintf(stderr, "cgwork: the workload never slept\n");
		return 1;
	}
	enter_pid(in, pid);
	a0 = read_tasks(pid);
	unsigned long long t0 = mono_ns();
	if (write(go[1], &c, 1) != 1 || read(doneb[0], &c, 1) != 1 || wait_asleep(pid)) {
		fprintf(stderr, "cgwork: the workload did not finish\n");
		return 1;
	}
	unsigned long long t1 = mono_ns();
	if (out)
		enter_pid(out, pid);
	a1 = read_tasks(pid);
	if (write(fin[1], &c, 1) != 1)
		return 1;
	waitpid(pid, NULL, 0);
	total = (struct acct){ a1.oncpu - a0.oncpu, a1.delay - a0.delay, a1.slices - a0.slices };
	report(t1 - t0);
	return 0;
}

static int spin(double cpu_s)
{
	unsigned long long t0 = mono_ns(), need = (unsigned long long)(cpu_s * 1e9);

	while (thread_cpu_ns() < need)
		for (int i = 0; i < 1000; i++)
			sink += i;
	add_self();
	report(mono_ns() - t0);
	return 0;
}

static void enter_pid(const char *procs, pid_t pid)
{
	FILE *f = fopen(procs, "w");
	if (!f || fprintf(f, "%d\n", pid) < 0 || fclose(f)) {
		fprintf(stderr, "cgwork: cannot move %d to %s: %s\n", pid, procs, strerror(errno));
		exit(1);
	}
}

static void enter(const char *procs)
{
	FILE *f = fopen(procs, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
		fprintf(stderr, "cgwork: cannot enter %s: %s\n", procs, strerror(errno));
		exit(1);
	}
}

static void spin_us(long us)
{
	unsigned long long end = mono_ns() + us * 1000ULL;
	while (mono_ns() < end)
		sink++;
}

static int pingpong(long rounds, int cpu, const char *a, const char *b, long spin)
{
	int ab[2], ba[2];
	char c = 'x';
	unsigned long long t0 = mono_ns();
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		enter(b);
		pin(cpu);
		for (long i = 0; i < rounds; i++) {
			if (read(ab[0], &c, 1) != 1)
				_exit(1);
			if (write(ba[1], &c, 1) != 1)
				_exit(1);
			spin_us(spin);
		}
		_exit(0);
	}
	enter(a);
	pin(cpu);
	for (long i = 0; i < rounds; i++) {
		if (write(ab[1], &c, 1) != 1)
			return 1;
		spin_us(spin);
		if (read(ba[0], &c, 1) != 1)
			return 1;
	}
	int st;
	waitpid(pid, &st, 0);
	add_self();
	report(mono_ns() - t0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static void burn_until(unsigned long long end)
{
	while (mono_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

static void sleep_until(unsigned long long end)
{
	struct timespec ts = { 0, 1000000 };
	while (mono_ns() < end)
		nanosleep(&ts, NULL);
}

static int duel(double s, int cpu, const char *a, const char *b)
{
	unsigned long long t0 = mono_ns(), half = t0 + (unsigned long long)(s * 5e8),
			   end = t0 + (unsigned long long)(s * 1e9);
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return 1;
	if (pid == 0) {
		enter(b);
		pin(cpu);
		sleep_until(half);
		burn_until(end);
		_exit(0);
	}
	enter(a);
	pin(cpu);
	burn_until(half);
	sleep_until(end);
	waitpid(pid, &st, 0);
	add_self();
	report(mono_ns() - t0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int duty_cpu;
static long duty_run_us, duty_sleep_us;

static void *duty_sleeper(void *arg)
{
	unsigned long long end = *(unsigned long long *)arg;
	struct timespec ts = { duty_sleep_us / 1000000, (duty_sleep_us % 1000000) * 1000 };

	pin(duty_cpu);
	while (mono_ns() < end) {
		unsigned long long until = thread_cpu_ns() + duty_run_us * 1000ULL;
		while (thread_cpu_ns() < until)
			sink++;
		nanosleep(&ts, NULL);
	}
	add_self();
	return NULL;
}

static int duty(double s, int cpu, long run_us, long sleep_us)
{
	unsigned long long t0 = mono_ns(), end = t0 + (unsigned long long)(s * 1e9);
	pthread_t t;

	duty_cpu = cpu;
	duty_run_us = run_us;
	duty_sleep_us = sleep_us;
	pin(cpu);
	if (pthread_create(&t, NULL, duty_sleeper, &end))
		return 1;
	burn_until(end);
	add_self();
	pthread_join(t, NULL);
	report(mono_ns() - t0);
	return 0;
}

/* One SCHED_FIFO thread on cpu: RUN_US of work, SLEEP_US asleep, for s seconds. */
static int rtduty(double s, int cpu, long run_us, long sleep_us)
{
	unsigned long long t0 = mono_ns(), end = t0 + (unsigned long long)(s * 1e9);
	struct sched_param sp = { .sched_priority = 10 };

	duty_cpu = cpu;
	duty_run_us = run_us;
	duty_sleep_us = sleep_us;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("cgwork rtduty: sched_setscheduler");
		return 1;
	}
	duty_sleeper(&end);
	report(mono_ns() - t0);
	return 0;
}

static int pulse(double s, int cpu, long period_us, long work_us, long every, long burst_us)
{
	unsigned long long t0 = mono_ns(), end = t0 + (unsigned long long)(s * 1e9), next = t0;

	long i, behind = 0, early = 0;
	unsigned long long most_over = 0, win = 0, ring[11] = { 0 }, due;
	pin(cpu);
	due = thread_cpu_ns();
	for (i = 0; mono_ns() < end; i++) {
		long us = every > 0 && i % every == every - 1 ? burst_us : work_us;
		unsigned long long b0 = mono_ns(), c0 = thread_cpu_ns(), c1 = work_due(&due, us * 1000ULL, end);
		/*
		 * A cycle's wall time over its CPU time: its waits, and time its
		 * CPU spent elsewhere while it was current (interrupts, the
		 * host's steal), which a scheduler tracer's clock counts as the
		 * task's and the task's own clock does not. The most in any 11
		 * cycles in a row: all that a window of 10 periods can touch.
		 */
		unsigned long long now = mono_ns(), w = now - b0, over = w > c1 - c0 ? w - (c1 - c0) : 0;
		win += over - ring[i % 11];
		ring[i % 11] = over;
		if (win > most_over)
			most_over = win;
		next += period_us * 1000ULL;
		if (next > end)
			next = end;
		if (next > now) {
			struct timespec ts = { next / 1000000000ULL, next % 1000000000ULL };
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			early += mono_ns() < next;
		} else {
			next = now; /* the work ran past the period: the next begins now */
			behind++;
		}
	}
	add_self();
	/* What the schedule did (stderr: stdout's one line is parsed by the tests). */
	fprintf(stderr, "pulse: cycles=%ld behind=%ld early=%ld over_ns=%llu\n", i, behind, early, most_over);
	report(mono_ns() - t0);
	return 0;
}

static pthread_barrier_t bar;
static unsigned long long bar_end, bar_cycle_ns, bar_work_ns;
static bool bar_done; /* the end, as the barrier's serial thread read it */

static void *bar_thread(void *arg)
{
	unsigned long long next = *(unsigned long long *)arg, due = thread_cpu_ns();

	for (;;) {
		work_due(&due, bar_work_ns, bar_end);
		/*
		 * Everyone's work done, or the end. One thread reads the clock for
		 * all: each reading its own, one kept from its CPU (throttled) past
		 * the end between the barrier and its read left, and the others
		 * waited for it at the next barrier for good (CI of 0bb9c33, the
		 * 7.3 guest: record --cpu-max of this workload ran 200 s).
		 */
		if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD)
			bar_done = mono_ns() >= bar_end;
		/* The next start on the schedule that is still to come (every thread finds the same one). */
		unsigned long long now = mono_ns();
		next += bar_cycle_ns;
		if (next <= now)
			next += ((now - next) / bar_cycle_ns + 1) * bar_cycle_ns;
		struct timespec ts = { next / 1000000000ULL, next % 1000000000ULL };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		/* All begin the cycle together, or all leave: the barrier shows each the serial thread's bar_done. */
		pthread_barrier_wait(&bar);
		if (bar_done)
			break;
	}
	add_self();
	return NULL;
}

static int barrier(double s, int threads, long cycle_us, long work_us)
{
	unsigned long long t0 = mono_ns();
	pthread_t th[64];

	if (threads < 1 || threads > 64)
		return 2;
	bar_end = t0 + (unsigned long long)(s * 1e9);
	bar_cycle_ns = cycle_us * 1000ULL;
	bar_work_ns = work_us * 1000ULL;
	pthread_barrier_init(&bar, NULL, threads);
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, bar_thread, &t0);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	report(mono_ns() - t0);
	return 0;
}

/* Work for ns of this thread's CPU time, as fibtest does it: Fibonacci numbers. */
static void fib_for(unsigned long long ns, unsigned long long end)
{
	unsigned long long until = thread_cpu_ns() + ns, a = 0, b = 1;

	while (thread_cpu_ns() < until && mono_ns() < end)
		for (int i = 0; i < 64; i++) {
			unsigned long long c = a + b;
			a = b;
			b = c;
		}
	sink += a;
}

/* Sleep until t (monotonic) in one sleep, unless it has passed. */
static void sleep_to(unsigned long long t)
{
	struct timespec ts = { t / 1000000000ULL, t % 1000000000ULL };

	if (mono_ns() < t)
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
}

struct arrivals {
	unsigned long long t0, end, work_ns, period_ns;
	double rate_hz;           /* > 0: Poisson arrivals at this rate; else every period_ns */
	unsigned short seed[3];
};

static void *arrivals_thread(void *arg)
{
	struct arrivals *a = arg;
	unsigned long long next = a->t0;

	while (next < a->end) {
		sleep_to(next);
		fib_for(a->work_ns, a->end);
		if (a->rate_hz > 0)
			next += (unsigned long long)(-log(1.0 - erand48(a->seed)) / a->rate_hz * 1e9);
		else
			next += a->period_ns;
	}
	add_self();
	return NULL;
}

/* THREADS threads of jobs on CPU: all every period_us, or each at rate_hz at random. */
static int arrivals_run(double s, int cpu, int threads, long period_us, double rate_hz, long work_us)
{
	unsigned long long t0 = mono_ns();
	struct arrivals a[64];
	pthread_t th[64];

	if (threads < 1 || threads > 64 || work_us < 1 || (rate_hz <= 0 && period_us < 1))
		return 2;
	pin(cpu);
	for (int i = 0; i < threads; i++) {
		a[i] = (struct arrivals){ .t0 = t0, .end = t0 + (unsigned long long)(s * 1e9),
					  .work_ns = work_us * 1000ULL, .period_ns = period_us * 1000ULL,
					  .rate_hz = rate_hz, .seed = { 0x330e, (unsigned short)(i + 1), 0x5eed } };
		pthread_create(&th[i], NULL, arrivals_thread, &a[i]);
	}
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	report(mono_ns() - t0);
	return 0;
}

static int wake(double s, long period_us)
{
	unsigned long long t0 = mono_ns(), end = t0 + (unsigned long long)(s * 1e9);
	struct timespec ts = { period_us / 1000000, (period_us % 1000000) * 1000 };
	while (mono_ns() < end)
		nanosleep(&ts, NULL);
	add_self();
	report(mono_ns() - t0);
	return 0;
}

/*
 * The CPU time on either side of each move is the thread's CPU clock
 * (task_sched_runtime: brought up to date, unlike schedstat) read right
 * after the write that moved it returns: the kernel split its account in
 * that write (sched_move_task), microseconds before.
 */
static int selfmove(const char *from, const char *to, double s, int cpu)
{
	unsigned long long c0, c1;

	pin(cpu);
	enter(from);
	c0 = thread_cpu_ns();
	burn_until(mono_ns() + 300000000ULL);
	enter(to);
	c1 = thread_cpu_ns();
	burn_until(mono_ns() + (unsigned long long)(s * 1e9));
	printf("from_ns=%llu to_ns=%llu\n", c1 - c0, thread_cpu_ns() - c1);
	return 0;
}

/* This thread's cgroups, as /proc/thread-self/cgroup lists them; 0: unreadable. */
static size_t my_cgroups(char *buf, size_t len)
{
	int fd = open("/proc/thread-self/cgroup", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return (size_t)n;
}

/*
 * Moved by another process while it runs: the first change of its cgroups
 * is seen within a poll (1 ms of wall time; a read costs microseconds), and
 * its CPU time then splits the run.
 */
struct watch {
	double s;
	int cpu;
	int rc;
	unsigned long long before, after;
};

static void *watch_run(void *arg)
{
	struct watch *w = arg;
	char was[4096], now[4096];
	unsigned long long end, poll, c0, moved = 0;

	pin(w->cpu);
	c0 = thread_cpu_ns();
	w->rc = 1;
	if (!my_cgroups(was, sizeof(was)))
		return NULL;
	end = mono_ns() + (unsigned long long)(w->s * 1e9);
	for (poll = mono_ns(); poll < end; poll = mono_ns()) {
		burn_until(poll + 1000000ULL);
		if (!moved && my_cgroups(now, sizeof(now)) && strcmp(now, was))
			moved = thread_cpu_ns();
	}
	if (!moved) {
		fprintf(stderr, "cgwork: not moved in %.1f s\n", w->s);
		return NULL;
	}
	w->before = moved - c0;
	w->after = thread_cpu_ns() - moved;
	w->rc = 0;
	return NULL;
}

static int watchmove(const char *from, double s, int cpu, bool threaded)
{
	struct watch w = { .s = s, .cpu = cpu };
	pthread_t t;

	enter(from);
	if (!threaded)
		watch_run(&w);
	else if (pthread_create(&t, NULL, watch_run, &w) || pthread_join(t, NULL))
		return 1;
	if (w.rc)
		return w.rc;
	printf("before_ns=%llu after_ns=%llu\n", w.before, w.after);
	return 0;
}

static int fleet(const char *dir, int n, double s, long period_ms)
{
	char path[4096];
	int pfd[2];

	if (pipe(pfd))
		return 1;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/g%d", dir, i);
		if (mkdir(path, 0755) && errno != EEXIST) {
			perror(path);
			return 1;
		}
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			close(pfd[0]);
			snprintf(path, sizeof(path), "%s/g%d/cgroup.procs", dir, i);
			enter(path);
			close(pfd[1]); /* tells the parent this one is in */
			unsigned long long end = mono_ns() + (unsigned long long)(s * 1e9);
			struct timespec ts = { period_ms / 1000, (period_ms % 1000) * 1000000 };
			while (mono_ns() < end)
				nanosleep(&ts, NULL);
			_exit(0);
		}
	}
	close(pfd[1]);
	char c;
	while (read(pfd[0], &c, 1) > 0) /* EOF once every child has entered */
		;
	printf("ready\n");
	fflush(stdout);
	while (wait(NULL) > 0)
		;
	return 0;
}

static int asuser(int uid, char **cmd)
{
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("cgwork asuser");
		return 1;
	}
	execvp(cmd[0], cmd);
	perror("cgwork asuser: exec");
	return 127;
}

int main(int argc, char **argv)
{
	start_cpu_ns = thread_cpu_ns();
	if (argc >= 4 && !strcmp(argv[1], "burn")) {
		secs = atof(argv[3]);
		if (getenv("CGWORK_ENTER"))
			return burn_window(atoi(argv[2]), argc > 4 ? atoi(argv[4]) : -1, getenv("CGWORK_ENTER"),
					   getenv("CGWORK_LEAVE"));
		return burn(atoi(argv[2]), argc > 4 ? atoi(argv[4]) : -1);
	}
	if (argc == 3 && !strcmp(argv[1], "spin") && getenv("CGWORK_ENTER")) {
		window_cpu_ns = (unsigned long long)(atof(argv[2]) * 1e9);
		return burn_window(1, -1, getenv("CGWORK_ENTER"), getenv("CGWORK_LEAVE"));
	}
	if (argc == 3 && !strcmp(argv[1], "spin"))
		return spin(atof(argv[2]));
	if (argc == 7 && !strcmp(argv[1], "pingpong"))
		return pingpong(atol(argv[2]), atoi(argv[3]), argv[4], argv[5], atol(argv[6]));
	if (argc == 6 && !strcmp(argv[1], "duel"))
		return duel(atof(argv[2]), atoi(argv[3]), argv[4], argv[5]);
	if (argc == 6 && !strcmp(argv[1], "selfmove"))
		return selfmove(argv[2], argv[3], atof(argv[4]), atoi(argv[5]));
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "thread"))) && !strcmp(argv[1], "watchmove"))
		return watchmove(argv[2], atof(argv[3]), atoi(argv[4]), argc == 6);
	if (argc == 6 && !strcmp(argv[1], "fleet"))
		return fleet(argv[2], atoi(argv[3]), atof(argv[4]), atol(argv[5]));
	if (argc >= 4 && !strcmp(argv[1], "asuser"))
		return asuser(atoi(argv[2]), argv + 3);
	if (argc == 6 && !strcmp(argv[1], "duty"))
		return duty(atof(argv[2]), atoi(argv[3]), atol(argv[4]), atol(argv[5]));
	if (argc == 6 && !strcmp(argv[1], "barrier"))
		return barrier(atof(argv[2]), atoi(argv[3]), atol(argv[4]), atol(argv[5]));
	if ((argc == 6 || argc == 8) && !strcmp(argv[1], "pulse"))
		return pulse(atof(argv[2]), atoi(argv[3]), atol(argv[4]), atol(argv[5]), argc == 8 ? atol(argv[6]) : 0,
			     argc == 8 ? atol(argv[7]) : 0);
	if (argc == 6 && !strcmp(argv[1], "rtduty"))
		return rtduty(atof(argv[2]), atoi(argv[3]), atol(argv[4]), atol(argv[5]));
	if (argc == 7 && !strcmp(argv[1], "fib"))
		return arrivals_run(atof(argv[2]), atoi(argv[3]), atoi(argv[4]), atol(argv[5]), 0, atol(argv[6]));
	if (argc == 7 && !strcmp(argv[1], "poisson"))
		return arrivals_run(atof(argv[2]), atoi(argv[3]), atoi(argv[4]), 0, atof(argv[5]), atol(argv[6]));
	if (argc == 4 && !strcmp(argv[1], "wake"))
		return wake(atof(argv[2]), atol(argv[3]));
	fprintf(stderr, "usage: see the comment at the top of cgwork.c\n");
	return 2;
}
