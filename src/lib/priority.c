// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/priority.h"
#include "lib/util.h"

int priority_parse(const char *s, struct cgs_priority *p)
{
	uint64_t v;

	if (!strcmp(s, "rt")) {
		*p = (struct cgs_priority){ CGS_PRIO_RT, CGS_PRIO_RT_DEFAULT };
		return 0;
	}
	if (!strncmp(s, "rt:", 3) && !parse_u64(s + 3, 1, 99, &v)) {
		*p = (struct cgs_priority){ CGS_PRIO_RT, (int)v };
		return 0;
	}
	/* Only raised: a lowered nice would pass to record's command (reset on fork undoes negative ones only). */
	if (!strncmp(s, "nice:-", 6) && !parse_u64(s + 6, 1, 20, &v)) {
		*p = (struct cgs_priority){ CGS_PRIO_NICE, -(int)v };
		return 0;
	}
	return -EINVAL;
}

const char *priority_name(const struct cgs_priority *p, char *buf, size_t len)
{
	switch (p->kind) {
	case CGS_PRIO_RT:
		snprintf(buf, len, "rt:%d", p->value);
		break;
	case CGS_PRIO_NICE:
		snprintf(buf, len, "nice:%d", p->value);
		break;
	default:
		snprintf(buf, len, "default");
	}
	return buf;
}

static int set_thread(const struct cgs_priority *p, int tid)
{
	struct sched_param sp = { .sched_priority = p->kind == CGS_PRIO_RT ? p->value : 0 };
	int policy = p->kind == CGS_PRIO_RT ? SCHED_FIFO : SCHED_OTHER;

	if (sched_setscheduler(tid, policy | SCHED_RESET_ON_FORK, &sp))
		return -errno;
	if (p->kind == CGS_PRIO_NICE && setpriority(PRIO_PROCESS, tid, p->value))
		return -errno;
	return 0;
}

int priority_apply(const struct cgs_priority *p, int *tid)
{
	struct dirent *d;
	DIR *dir;
	int err = 0;

	*tid = 0;
	if (p->kind == CGS_PRIO_DEFAULT)
		return 0;
	/*
	 * Set every thread, since export's and enforce --listen's HTTP threads
	 * are already running. Only this one, the tracing thread, gets a
	 * real-time policy. The others answer strangers' requests (a password
	 * to check costs a bcrypt), which must never run at real-time priority.
	 * They get the highest nice instead.
	 */
	const struct cgs_priority others = { .kind = CGS_PRIO_NICE, .value = -20 };
	int self = (int)syscall(SYS_gettid);
	if (!(dir = opendir("/proc/self/task")))
		return set_thread(p, 0);
	while (!err && (d = readdir(dir))) {
		int t = atoi(d->d_name);
		if (t > 0 && (err = set_thread(p->kind == CGS_PRIO_RT && t != self ? &others : p, t)))
			*tid = t;
	}
	closedir(dir);
	return err;
}

static bool have_cap_sys_nice(void)
{
	char line[256];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return true; /* unknown: do not blame the capability */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << 23); /* CAP_SYS_NICE */
}

bool priority_refused_by_group(const struct cgs_priority *p)
{
	struct rlimit rl = {};
	/* What the limit must allow: RLIMIT_RTPRIO the priority, RLIMIT_NICE 20 - nice. */
	rlim_t need = p->kind == CGS_PRIO_RT ? (rlim_t)p->value : (rlim_t)(20 - p->value);

	if (getrlimit(p->kind == CGS_PRIO_RT ? RLIMIT_RTPRIO : RLIMIT_NICE, &rl))
		rl.rlim_cur = 0;
	bool allowed = have_cap_sys_nice() || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need;
	/* Allowed, and still refused: only a real-time policy has a further gate, the cgroup's RT runtime. */
	return allowed && p->kind == CGS_PRIO_RT;
}
