// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The engine of `cgsched enforce`: see enforcer.h and docs/limits.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cgroupfs.h"
#include "limits/enforcer.h"
#include "lib/util.h"

static void elog(struct enforcer *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void elog(struct enforcer *e, const char *fmt, ...)
{
	char line[2 * PATH_MAX + 256];
	va_list ap;

	if (!e->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	e->log(e->log_ctx, line);
}

static void m_key(const void *ctx, size_t i, const char **rel, const char **file)
{
	const struct enforcer *e = ctx;

	*rel = e->m[i].rel;
	*file = e->m[i].file;
}

static void soft_key(const void *ctx, size_t i, const char **rel, const char **none)
{
	const struct enforcer *e = ctx;

	*rel = e->soft[i].rel;
	*none = "";
}

/* Both by hash: a pass looks up every target and every file. */
static struct enf_managed *find_m(struct enforcer *e, const char *rel, const char *file)
{
	size_t i = keyidx_find(&e->mi, rel, file, m_key, e);

	return i == SIZE_MAX ? NULL : &e->m[i];
}

static struct enf_soft *find_soft(struct enforcer *e, const char *rel)
{
	size_t i = keyidx_find(&e->si, rel, "", soft_key, e);

	return i == SIZE_MAX ? NULL : &e->soft[i];
}

/* Soft-capped targets: make sure each has a state. */
static int note_soft(void *ctx, const char *rel, const struct limit_rule *r, bool exists)
{
	struct enforcer *e = ctx;
	struct enf_soft *s;
	uint64_t id;

	if (!r->has_soft || !exists || cgfs_id(e->fs, rel, &id))
		return 0;
	if ((s = find_soft(e, rel))) {
		/* Another cgroup under the same name: its state starts afresh. */
		if (s->id != id)
			*s = (struct enf_soft){ .id = id };
		snprintf(s->rel, sizeof(s->rel), "%s", rel);
		s->seen = true;
		return 0;
	}
	if (ARRAY_GROW(e->soft, e->nsoft, e->softcap, 8))
		return -ENOMEM;
	s = &e->soft[e->nsoft];
	memset(s, 0, sizeof(*s));
	snprintf(s->rel, sizeof(s->rel), "%s", rel);
	if (keyidx_add(&e->si, e->nsoft, s->rel, ""))
		return -ENOMEM;
	e->nsoft++;
	s->id = id;
	s->seen = true;
	return 0;
}

/* Soft-cap states of cgroups gone (or no longer soft-capped) go: the list is as long as the targets. */
static void shrink_soft(struct enforcer *e)
{
	size_t w = 0, before = e->nsoft;

	for (size_t i = 0; i < e->nsoft; i++)
		if (e->soft[i].seen)
			e->soft[w++] = e->soft[i];
	e->nsoft = w;
	if (w != before) {
		/* Fewer than before: this takes no memory, so it cannot fail. */
		keyidx_rebuild(&e->si, w, soft_key, e);
		cgs_debug("soft-cap states: %zu (%zu dropped: cgroups gone or no longer soft-capped)", w, before - w);
	}
	if (w < e->softcap / 4 && e->softcap > 8) {
		/* Give the memory back after a wave of short-lived cgroups (about 8 KB each). */
		size_t c = e->softcap / 2;
		struct enf_soft *n = realloc(e->soft, c * sizeof(*n));
		if (n) {
			e->soft = n;
			e->softcap = c;
		}
	}
}

/*
 * Contention: a cgroup outside the soft-capped one (and its descendants)
 * whose run-queue p99 in the interval was above the threshold. The root
 * cgroup (kernel threads, everything unmanaged) and cgsched's own cgroup do
 * not count: cgsched waiting behind a burner is not a neighbour's demand.
 */
void enforcer_judge(struct enforcer *e, const struct enf_load *rows, size_t n)
{
	char a[16], b[16];

	for (size_t i = 0; i < e->nsoft; i++) {
		struct enf_soft *s = &e->soft[i];
		const struct enf_load *worst = NULL;
		size_t l = strlen(s->rel);
		for (size_t k = 0; k < n; k++) {
			const struct enf_load *w = &rows[k];
			if (!w->path || w->waits < e->min_waits || w->p99_ns <= e->threshold_ns)
				continue;
			if (!strcmp(w->path, s->rel) || (!strncmp(w->path, s->rel, l) && w->path[l] == '/'))
				continue;
			if (!strcmp(w->path, "/") || !strcmp(w->path, e->self))
				continue;
			if (!worst || w->p99_ns > worst->p99_ns)
				worst = w;
		}
		if (worst) {
			s->quiet = 0;
			if (!s->capped) {
				s->capped = true;
				snprintf(s->why, sizeof(s->why), "soft cap on: %s run-queue p99 %s > %s", worst->path,
					 fmt_duration(a, sizeof(a), worst->p99_ns),
					 fmt_duration(b, sizeof(b), e->threshold_ns));
			}
		} else if (s->capped && ++s->quiet >= 2) {
			s->capped = false;
			snprintf(s->why, sizeof(s->why), "soft cap lifted: no contention for 2 intervals");
		}
	}
}

/* One pass over the limits file's targets; rel and rule: the target at hand. */
struct pass {
	struct enforcer *e;
	bool first;
	const char *rel;
	uint64_t id; /* rel's cgroup: which one under the name (made again: another) */
	const struct limit_rule *rule;
};

static void want_value(void *ctx, const char *file, const char *value);
static int journal_commit(struct enforcer *e);

/*
 * One target's writes, queued from start on: its burst goes before its
 * quota when the new quota is below the burst in force, which the kernel
 * would refuse.
 */
static void order_bursts(struct enforcer *e, size_t start)
{
	for (size_t i = start; i < e->npend; i++) {
		const char *bf = burst_file_of(e->m[e->pend[i].m].file);
		for (size_t j = i + 1; bf && j < e->npend; j++) {
			if (strcmp(e->m[e->pend[j].m].file, bf))
				continue;
			if (burst_goes_first(e->pend[i].value, e->pend[j].now)) {
				struct enf_pending t = e->pend[j];
				memmove(&e->pend[i + 1], &e->pend[i], (j - i) * sizeof(t));
				e->pend[i] = t;
			}
			break;
		}
	}
}

static int pass_target(void *ctx, const char *rel, const struct limit_rule *r, bool exists)
{
	struct pass *p = ctx;
	struct enforcer *e = p->e;
	uint64_t id;

	if (!exists) {
		int err;
		bool enabled;
		if (!r->create)
			return 0;
		if ((err = cgfs_enable_cpu_in_parent(e->fs, rel, &enabled)) ||
		    ((err = cgfs_mkdir(e->fs, rel)) && err != -EEXIST)) {
			elog(e, "%s: cannot create: %s", rel, strerror(-err));
			return 0;
		}
		elog(e, "%s: created (create = yes)", rel);
	}
	if (cgfs_id(e->fs, rel, &id))
		return 0;
	p->rel = rel;
	p->id = id;
	p->rule = r;
	struct enf_soft *s = find_soft(e, rel);
	size_t start = e->npend;
	e->reason = s && s->why[0] ? s->why : NULL;
	rule_values(r, e->fs->version, s && s->capped, want_value, p);
	order_bursts(e, start);
	if (s)
		s->why[0] = 0;
	return 0;
}

/* One desired value: take it under management; a write, if one is needed, is queued for flush(). */
static void want_value(void *ctx, const char *file, const char *value)
{
	struct pass *p = ctx;
	struct enforcer *e = p->e;
	struct enf_managed *m = find_m(e, p->rel, file);
	char now[64], fresh[PATH_MAX + 32] = "";

	uint64_t id = p->id;

	if (cgfs_read(e->fs, p->rel, file, now, sizeof(now)) < 0)
		return;
	now[strcspn(now, "\n")] = 0;
	if (m && m->id != id) {
		/*
		 * Another cgroup under the name (removed and made again: a
		 * systemctl restart does it within a second). The one enforce
		 * wrote to is gone, and so is its value; what this one has now
		 * is its own original, journalled before enforce writes to it.
		 */
		cgs_debug("%s %s: a new cgroup under the name (id %llu, was %llu): its value '%s' is its original",
			  p->rel, file, (unsigned long long)id, (unsigned long long)m->id, now);
		if (m->journaled && journal_drop(&e->j, m->rel, m->file) && journal_commit(e))
			elog(e, "journal %s: cannot update it", e->j.path);
		snprintf(m->orig, sizeof(m->orig), "%s", now);
		snprintf(m->want, sizeof(m->want), "%s", now);
		m->id = id;
		m->journaled = false;
		snprintf(fresh, sizeof(fresh), "made again under its name");
	}
	if (!m) {
		if (ARRAY_GROW(e->m, e->n, e->cap, 16))
			return;
		m = &e->m[e->n];
		memset(m, 0, sizeof(*m));
		snprintf(m->rel, sizeof(m->rel), "%s", p->rel);
		snprintf(m->file, sizeof(m->file), "%s", file);
		if (keyidx_add(&e->mi, e->n, m->rel, m->file))
			return;
		e->n++;
		if (!p->first)
			snprintf(fresh, sizeof(fresh), "new, matches [%s]", p->rule->pattern);
		m->id = id;
		snprintf(m->orig, sizeof(m->orig), "%s", now);
		snprintf(m->want, sizeof(m->want), "%s", now);
	}
	m->seen = true;
	if (!strcmp(now, value)) {
		snprintf(m->want, sizeof(m->want), "%s", value);
		return;
	}
	const char *why = e->reason;
	if (!why && fresh[0])
		why = fresh;
	if (!why)
		why = p->first ? "in the limits file" :
		      strcmp(m->want, value) ? "the limits file changed" :
		      "someone else changed it: restored";
	if (ARRAY_GROW(e->pend, e->npend, e->pendcap, 16)) {
		elog(e, "%s %s: %s -> %s not made: out of memory", p->rel, file, now, value);
		return;
	}
	struct enf_pending *w = &e->pend[e->npend];
	memset(w, 0, sizeof(*w));
	if (!(w->why = strdup(why))) {
		elog(e, "%s %s: %s -> %s not made: out of memory", p->rel, file, now, value);
		return;
	}
	w->m = m - e->m;
	snprintf(w->now, sizeof(w->now), "%s", now);
	snprintf(w->value, sizeof(w->value), "%s", value);
	e->npend++;
}

/* The journal as it is in memory, on disk: replaced whole, or removed when empty. */
static int journal_commit(struct enforcer *e)
{
	return e->j.n ? journal_save(&e->j) : journal_remove(e->j.path);
}

/*
 * Do the pass's writes. First, the values of the files about to be
 * changed for the first time go to the journal, in one atomic replace.
 * Then come the writes, in the order decided: a quota before its burst,
 * unless the new quota is below the burst in force. No file is changed
 * whose value could not be journalled, because after a crash it could not
 * be put back.
 */
static void flush(struct enforcer *e)
{
	size_t added = 0;
	int err;

	for (size_t i = 0; i < e->npend; i++) {
		struct enf_pending *w = &e->pend[i];
		struct enf_managed *m = &e->m[w->m];
		const struct journal_ent *old;
		if (m->journaled)
			continue;
		/* Still journalled: its restore was refused after a reload. Its value then is the original. */
		if ((old = journal_find(&e->j, m->rel, m->file)) && old->id == m->id) {
			snprintf(m->orig, sizeof(m->orig), "%s", old->orig);
			m->journaled = true;
			continue;
		}
		if (old) /* a cgroup gone since: this one under its name is another */
			journal_drop(&e->j, m->rel, m->file);
		if (!journal_value_ok(m->file, m->orig) || (err = journal_add(&e->j, m->id, m->rel, m->file, m->orig))) {
			elog(e, "%s %s: %s -> %s not made: its value '%s' cannot be journalled", m->rel, m->file, w->now,
				w->value, m->orig);
			w->skip = true;
			continue;
		}
		m->journaled = w->added = true;
		added++;
	}
	if (added && (err = journal_save(&e->j))) {
		if (err == -EFBIG)
			elog(e, "journal %s: cannot write it: %zu values would make it larger than " JOURNAL_MAX_TEXT
				", which could not be read back: %zu change%s not made (none is made that a crash could not "
				"undo); split the limits file between enforce processes, each with its own --journal",
				e->j.path, e->j.n, added, added == 1 ? "" : "s");
		else
			elog(e, "journal %s: cannot write it (%s): %zu change%s not made (none is made that a crash could not undo)",
				e->j.path, strerror(-err), added, added == 1 ? "" : "s");
		/* This pass's entries out again; those of earlier passes are on disk, their writes go ahead. */
		for (size_t i = 0; i < e->npend; i++) {
			struct enf_managed *m = &e->m[e->pend[i].m];
			if (e->pend[i].added) {
				journal_drop(&e->j, m->rel, m->file);
				m->journaled = false;
			}
		}
		for (size_t i = 0; i < e->npend; i++)
			if (!e->m[e->pend[i].m].journaled)
				e->pend[i].skip = true;
	}
	for (size_t i = 0; i < e->npend; i++) {
		struct enf_pending *w = &e->pend[i];
		struct enf_managed *m = &e->m[w->m];
		if (!w->skip) {
			if ((err = cgfs_write(e->fs, m->rel, m->file, w->value)))
				elog(e, "%s %s: %s -> %s failed: %s", m->rel, m->file, w->now, w->value, strerror(-err));
			else
				elog(e, "%s %s: %s -> %s (%s)", m->rel, m->file, w->now, w->value, w->why);
			snprintf(m->want, sizeof(m->want), "%s", w->value);
		}
		free(w->why);
	}
	e->npend = 0;
}

/* Put a file back as found: 0 (or nothing to do: as found, or the cgroup gone), -errno when refused. */
static int restore(struct enforcer *e, struct enf_managed *m, const char *why)
{
	char now[64];
	uint64_t id;
	int err;

	/* Gone, or another cgroup under its name: not ours to write. */
	if (cgfs_id(e->fs, m->rel, &id) || id != m->id || cgfs_read(e->fs, m->rel, m->file, now, sizeof(now)) < 0)
		return 0;
	now[strcspn(now, "\n")] = 0;
	if (!strcmp(now, m->orig))
		return 0;
	if ((err = cgfs_write(e->fs, m->rel, m->file, m->orig)))
		elog(e, "%s %s: restoring %s failed: %s", m->rel, m->file, m->orig, strerror(-err));
	else
		elog(e, "%s %s: %s -> %s (%s)", m->rel, m->file, now, m->orig, why);
	return err;
}

/* m put back as found, and out of the journal unless the kernel refused it; true when the journal changed. */
static bool put_back(struct enforcer *e, struct enf_managed *m, const char *why)
{
	m->put_back = true;
	return !restore(e, m, why) && m->journaled && journal_drop(&e->j, m->rel, m->file);
}

/*
 * Every file not seen in this pass (all: every file) put back, newest
 * first: the reverse of the order in which they were first changed. A
 * cgroup's quota and burst go in the order the kernel takes: the burst
 * first when the quota put back is below the burst in force. True when the
 * journal changed.
 */
static bool put_back_all(struct enforcer *e, bool all, const char *why)
{
	bool dropped = false;

	for (size_t i = 0; i < e->n; i++)
		e->m[i].put_back = false;
	for (size_t i = e->n; i-- > 0;) {
		struct enf_managed *m = &e->m[i], *q = NULL, *b = NULL;
		const char *other;
		if (m->put_back || (!all && m->seen))
			continue;
		if ((other = burst_file_of(m->file)))
			q = m, b = find_m(e, m->rel, other);
		else if ((other = quota_file_of(m->file)))
			b = m, q = find_m(e, m->rel, other);
		if (q && b && q->id == b->id && !q->put_back && !b->put_back && (all || (!q->seen && !b->seen))) {
			char now[64] = "";
			bool burst_first = cgfs_read(e->fs, b->rel, b->file, now, sizeof(now)) >= 0 &&
					   burst_goes_first(q->orig, now);
			dropped |= put_back(e, burst_first ? b : q, why);
			m = burst_first ? q : b;
		}
		dropped |= put_back(e, m, why);
	}
	return dropped;
}

void enforcer_pass(struct enforcer *e, bool first)
{
	struct pass p = { .e = e, .first = first };
	bool dropped;
	size_t w = 0;
	int err;

	for (size_t i = 0; i < e->n; i++)
		e->m[i].seen = false;
	for (size_t i = 0; i < e->nsoft; i++)
		e->soft[i].seen = false;
	limits_targets(&e->lf, e->fs, note_soft, e);
	shrink_soft(e);
	limits_targets(&e->lf, e->fs, pass_target, &p);
	flush(e);
	/*
	 * Files no longer in the file (after a reload): back to what they were.
	 * Files of cgroups gone: forgotten. Either way out of the journal, but
	 * for a value the kernel refused to take back (kept for apply --restore).
	 * The list keeps its order, which is the order of the restore at exit.
	 */
	dropped = put_back_all(e, false, "no longer in the limits file");
	for (size_t i = 0; i < e->n; i++)
		if (e->m[i].seen)
			e->m[w++] = e->m[i];
	/* Fewer than before: this takes no memory, so it cannot fail. */
	if (w != e->n)
		keyidx_rebuild(&e->mi, w, m_key, e);
	e->n = w;
	if (dropped && (err = journal_commit(e)))
		elog(e, "journal %s: cannot update it: %s", e->j.path, strerror(-err));
}

int enforcer_reload(struct enforcer *e, const char *path)
{
	struct limits_file lf;
	char err[PATH_MAX + 256];

	if (limits_file_load(path, e->fs, &lf, err, sizeof(err))) {
		elog(e, "reload failed, keeping the limits in force: %s", err);
		return -1;
	}
	limits_file_free(&e->lf);
	e->lf = lf;
	elog(e, "reloaded %s: %zu sections", path, lf.n);
	enforcer_pass(e, false);
	return 0;
}

void enforcer_init(struct enforcer *e, struct cgfs *fs, struct limits_file *lf, const char *journal_path)
{
	memset(e, 0, sizeof(*e));
	e->fs = fs;
	e->lf = *lf;
	memset(lf, 0, sizeof(*lf));
	e->threshold_ns = ENF_THRESHOLD_NS;
	e->min_waits = ENF_MIN_WAITS;
	journal_init(&e->j, journal_path, fs);
}

size_t enforcer_stop(struct enforcer *e)
{
	int err;

	put_back_all(e, true, "restored at exit");
	keyidx_rebuild(&e->mi, 0, m_key, e);
	/* A clean restore: no journal. Else what could not be put back stays in it. */
	if ((err = journal_commit(e)))
		elog(e, "journal %s: cannot %s it: %s", e->j.path, e->j.n ? "update" : "remove", strerror(-err));
	e->n = 0;
	return e->j.n;
}

void enforcer_free(struct enforcer *e)
{
	for (size_t i = 0; i < e->npend; i++)
		free(e->pend[i].why);
	journal_free(&e->j);
	keyidx_free(&e->mi);
	keyidx_free(&e->si);
	free(e->m);
	free(e->soft);
	free(e->pend);
	limits_file_free(&e->lf);
	memset(e, 0, sizeof(*e));
}
