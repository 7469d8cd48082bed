// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Is a sched_ext BPF scheduler in charge: its sysfs files, read once per session. */
#include <stdio.h>
#include <string.h>

#include "kernel/sched_ext.h"

static bool read_line(const char *dir, const char *file, char *buf, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!(f = fopen(path, "re")))
		return false;
	bool ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

void scx_read(struct scx_state *s, const char *root)
{
	const char *dir = root ? root : "/sys/kernel/sched_ext";
	char ops_dir[256];

	*s = (struct scx_state){};
	if (!read_line(dir, "state", s->state, sizeof(s->state)))
		return;
	s->present = true;
	/* root/ops exists only while a scheduler is loaded. */
	snprintf(ops_dir, sizeof(ops_dir), "%s/root", dir);
	read_line(ops_dir, "ops", s->ops, sizeof(s->ops));
}

bool scx_active(const struct scx_state *s)
{
	return s->present && (!strcmp(s->state, "enabled") || !strcmp(s->state, "enabling"));
}

const char *scx_describe(const struct scx_state *s, char *buf, unsigned long n)
{
	if (!s->present)
		snprintf(buf, n, "%s", "");
	else if (scx_active(s))
		snprintf(buf, n, "sched_ext: BPF scheduler %s %s, CFS throttling does not apply to its tasks",
			 s->ops[0] ? s->ops : "(unnamed)", s->state);
	else
		snprintf(buf, n, "sched_ext: %s", s->state);
	return buf;
}
