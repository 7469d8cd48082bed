// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ini.h>

#include "kernel/cgroupfs.h"
#include "limits/limits_file.h"
#include "lib/keyidx.h"
#include "lib/util.h"

enum { K_MAX, K_WEIGHT, K_BURST, K_SOFT, K_CREATE };
static const char *const keys[] = { "max", "weight", "burst", "soft_max", "create" };

/* A limits file is a few sections: anything larger is not one. */
#define LIMITS_FILE_MAX (1 << 20)

struct load_ctx {
	struct limits_file *lf;
	struct cgfs *fs;
	const char *text, *at;   /* the whole file, and the next line to hand inih */
	bool mid_line;           /* the last piece handed out did not end a line */
	int line, section_line;
	char *section;           /* the current section's name in full */
	char *err;
	size_t errlen;
	bool failed;
	int fail_line;
};

/*
 * The ']' that closes the set of fnmatch opening at p ('['), or NULL when
 * none does on the line: then the '[' is a plain character, as fnmatch
 * takes it. A ']' first in the set is one of its characters.
 */
static const char *set_end(const char *p)
{
	const char *q = p + 1;

	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']')
		q++;
	for (; *q && *q != '\n'; q++) {
		if (*q == '\\' && q[1] && q[1] != '\n') {
			q++;
		} else if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
			/* A class such as [:digit:]: its ']' does not close the set. */
			const char *e = q + 2;
			while (*e && *e != '\n' && !(e[0] == q[1] && e[1] == ']'))
				e++;
			if (!*e || *e == '\n')
				return NULL;
			q = e + 1;
		} else if (*q == ']') {
			return q;
		}
	}
	return NULL;
}

/*
 * The ']' that ends the section name opening at p ('['): the first one
 * outside a set of the glob, so that [x-[ab]] names x-[ab]. Else the first
 * ']' on the line, as inih reads it, or NULL.
 */
static const char *section_end(const char *p)
{
	const char *q, *e;

	for (q = p + 1; *q && *q != '\n'; q++) {
		if (*q == '\\' && q[1] && q[1] != '\n')
			q++;
		else if (*q == '[' && (e = set_end(q)))
			q = e;
		else if (*q == ']')
			return q;
	}
	q = strpbrk(p, "]\n");
	return q && *q == ']' ? q : NULL;
}

/* A glob: it has a '*', a '?', or a set that closes. */
static bool is_glob(const char *pattern)
{
	for (const char *p = pattern; *p; p++)
		if (*p == '*' || *p == '?' || (*p == '[' && set_end(p)))
			return true;
	return false;
}

/*
 * inih reads through this, one whole line per call, and the lines are
 * counted. inih's line buffer may grow to the file's size, so it never
 * splits a line. A section header's name is kept in full here, since inih
 * cuts section names at 49 bytes.
 */
static char *reader(char *buf, int size, void *stream)
{
	struct load_ctx *c = stream;
	const char *nl, *p;
	size_t n;

	if (!*c->at || size < 2)
		return NULL;
	if (!c->mid_line) {
		c->line++;
		p = c->at + strspn(c->at, " \t");
		if (*p == '[') {
			const char *close = section_end(p);
			c->section_line = c->line;
			free(c->section);
			c->section = close ? strndup(p + 1, close - p - 1) : NULL;
		}
	}
	/* inih asks for the rest of a long line in a grown buffer: hand it out in pieces. */
	nl = strchr(c->at, '\n');
	n = nl ? (size_t)(nl - c->at) + 1 : strlen(c->at);
	if (n > (size_t)size - 1)
		n = size - 1;
	memcpy(buf, c->at, n);
	buf[n] = 0;
	c->at += n;
	c->mid_line = buf[n - 1] != '\n' && *c->at;
	return buf;
}

static int fail_at(struct load_ctx *c, int line, const char *fmt, const char *a, const char *b)
{
	if (!c->failed) {
		c->fail_line = line;
		int n = snprintf(c->err, c->errlen, "%s:%d: ", c->lf->path, line);
		snprintf(c->err + n, c->errlen - n, fmt, a, b);
		c->failed = true;
	}
	return 0; /* tells inih to stop counting this as fine */
}

static struct limit_rule *rule_for(struct load_ctx *c, const char *section)
{
	struct limits_file *lf = c->lf;
	char norm[PATH_MAX];

	if (cgpath_normalize(c->fs->mnt, section, norm, sizeof(norm)))
		return NULL;
	for (size_t i = 0; i < lf->n; i++)
		if (!strcmp(lf->r[i].pattern, norm))
			return &lf->r[i];
	struct limit_rule *n = realloc(lf->r, (lf->n + 1) * sizeof(*n));
	if (!n)
		return NULL;
	lf->r = n;
	struct limit_rule *r = &lf->r[lf->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->pattern, sizeof(r->pattern), "%s", norm);
	r->line = c->section_line;
	r->glob = is_glob(norm);
	return r;
}

static int on_key(void *user, const char *cut_section, const char *name, const char *value)
{
	struct load_ctx *c = user;
	struct limit_rule *r;
	const char *why, *section = c->section;
	char norm[PATH_MAX];
	int k;

	if (!*cut_section || !section)
		return fail_at(c, c->line, "'%s' outside a [cgroup] section%s", name, "");
	if (cgpath_normalize(c->fs->mnt, section, norm, sizeof(norm)))
		return fail_at(c, c->section_line, "[%s]: not a cgroup path (relative to the cpu hierarchy, no '..')%s", section, "");
	if (!strcmp(norm, "/"))
		return fail_at(c, c->section_line, "[%s]: the root cgroup takes no limits; name a cgroup below it%s", section, "");
	if (!(r = rule_for(c, section)))
		return fail_at(c, c->section_line, "[%s]: out of memory%s", section, "");
	for (k = 0; k < 5 && strcmp(name, keys[k]); k++)
		;
	if (k == 5)
		return fail_at(c, c->line, "unknown key '%s' in [%s]: expected max, weight, burst, soft_max or create", name, section);
	if (r->line_of[k])
		return fail_at(c, c->line, "'%s' set twice in [%s]", name, section);
	r->line_of[k] = c->line;
	switch (k) {
	case K_MAX:
		if (parse_cpu_max(value, &r->lim.quota_us, &r->lim.period_us, &why))
			return fail_at(c, c->line, "max = %s: %s", value, why);
		r->lim.has_max = true;
		break;
	case K_WEIGHT:
		if (parse_cpu_weight(value, &r->lim.weight, &why))
			return fail_at(c, c->line, "weight = %s: %s", value, why);
		r->lim.has_weight = true;
		break;
	case K_BURST: {
		uint64_t ns;
		if (parse_duration_ns(value, 1000, &ns) || ns / 1000 > CGS_PERIOD_MAX_US * 1000)
			return fail_at(c, c->line, "burst = %s: %s", value, "expected a duration (bare numbers are us), e.g. 20ms");
		r->burst_us = ns / 1000;
		r->has_burst = true;
		break;
	}
	case K_SOFT:
		if (parse_cpu_max(value, &r->soft_quota_us, &r->soft_period_us, &why) || !r->soft_quota_us)
			return fail_at(c, c->line, "soft_max = %s: %s", value,
				       "expected QUOTA[/PERIOD], PCT% or Ncpus (not max: that is no soft cap)");
		r->has_soft = true;
		break;
	case K_CREATE:
		if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1"))
			r->create = true;
		else if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0"))
			r->create = false;
		else
			return fail_at(c, c->line, "create = %s: %s", value, "expected yes or no");
		break;
	}
	return 1;
}

/* Checks across keys and against the hierarchy, after the whole file is read. */
static int check_rule(struct load_ctx *c, struct limit_rule *r)
{
	char buf[64];
	uint64_t id;

	if (r->has_burst && r->lim.has_max && r->lim.quota_us && r->burst_us > r->lim.quota_us) {
		snprintf(buf, sizeof(buf), "%llu us", (unsigned long long)r->lim.quota_us);
		return fail_at(c, r->line_of[K_BURST], "burst larger than the quota (%s) in [%s]", buf, r->pattern);
	}
	/* The cap is a quota too: the kernel refuses it below the burst, and the cap would never come on. */
	if (r->has_burst && r->has_soft && r->burst_us > r->soft_quota_us) {
		snprintf(buf, sizeof(buf), "%llu us", (unsigned long long)r->soft_quota_us);
		return fail_at(c, r->line_of[K_BURST], "burst larger than the soft cap's quota (%s) in [%s]: "
			       "lower the burst or raise soft_max", buf, r->pattern);
	}
	if (r->has_soft && r->lim.has_max && r->lim.quota_us &&
	    (double)r->soft_quota_us / r->soft_period_us >= (double)r->lim.quota_us / r->lim.period_us)
		return fail_at(c, r->line_of[K_SOFT], "soft_max must be below max in [%s]%s", r->pattern, "");
	if (r->glob) {
		if (r->create)
			return fail_at(c, r->line_of[K_CREATE], "[%s]: a glob cannot create cgroups%s", r->pattern, "");
		return 1;
	}
	int err = cgfs_id(c->fs, r->pattern, &id);
	if (err == -ENOTDIR)
		return fail_at(c, r->line, "[%s]: not a cgroup: a file, or below one%s", r->pattern, "");
	if (err && !r->create)
		return fail_at(c, r->line, "[%s]: no such cgroup (add 'create = yes' to make it)%s", r->pattern, "");
	if (err) {
		/* mkdir makes one level: the parent exists, or an earlier section makes it. */
		char parent[PATH_MAX];
		bool made = false;
		cgpath_parent(r->pattern, parent, sizeof(parent));
		for (const struct limit_rule *p = c->lf->r; p < r && !made; p++)
			made = p->create && !strcmp(p->pattern, parent);
		if (!made && cgfs_id(c->fs, parent, &id))
			return fail_at(c, r->line_of[K_CREATE], "[%s]: cannot create it: its parent %s is not a cgroup; "
				       "create the parent first, in a section above this one", r->pattern, parent);
	}
	return 1;
}

int limits_file_load(const char *path, struct cgfs *fs, struct limits_file *lf, char *err, size_t errlen)
{
	char *text;
	size_t len;
	const char *why;
	int r;

	memset(lf, 0, sizeof(*lf));
	/* Applied as root, create = yes included: a file others can write is refused. */
	if (read_file_config(path, LIMITS_FILE_MAX, &text, &len, &why)) {
		snprintf(err, errlen, "%s: %s%s", path, why,
			 !strcmp(why, "too large") ? " (a limits file is at most 1 MiB)" : "");
		return -1;
	}
	r = limits_file_parse(text, len, path, fs, lf, err, errlen);
	free(text);
	return r;
}

int limits_file_parse(const char *text, size_t len, const char *path, struct cgfs *fs, struct limits_file *lf,
		      char *err, size_t errlen)
{
	struct load_ctx c = { .lf = lf, .fs = fs, .err = err, .errlen = errlen };
	int r;

	memset(lf, 0, sizeof(*lf));
	snprintf(lf->path, sizeof(lf->path), "%s", path);
	if (strnlen(text, len) != len) {
		snprintf(err, errlen, "%s: a NUL byte: not a text file", path);
		return -1;
	}
	if (len > LIMITS_FILE_MAX) {
		snprintf(err, errlen, "%s: too large (a limits file is at most 1 MiB)", path);
		return -1;
	}
	c.text = c.at = text;
	/* Debian's libinih takes its limits at run time: a heap buffer as long as the file. */
	ini_use_stack = false;
	ini_allow_realloc = true;
	ini_max_line = (int)len + 3;
	ini_initial_alloc = 256;
	r = ini_parse_stream(reader, &c, on_key, &c);
	free(c.section);
	/* inih's own syntax error, when it comes before ours. */
	if (r > 0 && (!c.failed || r < c.fail_line)) {
		snprintf(err, errlen, "%s:%d: not INI: expected [cgroup] or key = value", path, r);
		c.failed = true;
	}
	for (size_t i = 0; !c.failed && i < lf->n; i++)
		check_rule(&c, &lf->r[i]);
	if (!c.failed && !lf->n) {
		snprintf(err, errlen, "%s: no [cgroup] section with a setting", path);
		c.failed = true;
	}
	if (c.failed)
		goto fail;
	return 0;
fail:
	limits_file_free(lf);
	return -1;
}

void limits_file_free(struct limits_file *lf)
{
	free(lf->r);
	lf->r = NULL;
	lf->n = 0;
}

/* --- plans ------------------------------------------------------------------ */

int rule_values(const struct limit_rule *r, int version, bool soft_on,
		void (*cb)(void *ctx, const char *file, const char *value), void *ctx)
{
	char v[64];
	bool has_max = r->lim.has_max || (soft_on && r->has_soft);
	uint64_t q = r->lim.quota_us, p = r->lim.has_max ? r->lim.period_us : CGS_PERIOD_DEFAULT_US;

	if (soft_on && r->has_soft) {
		q = r->soft_quota_us;
		p = r->soft_period_us;
	} else if (!r->lim.has_max && r->has_soft) {
		/* A soft cap alone: unlimited while it is lifted. */
		has_max = true;
		q = 0;
		p = r->soft_period_us;
	}
	if (has_max) {
		if (version == 1) {
			snprintf(v, sizeof(v), "%llu", (unsigned long long)p);
			cb(ctx, "cpu.cfs_period_us", v);
			if (q)
				snprintf(v, sizeof(v), "%llu", (unsigned long long)q);
			else
				snprintf(v, sizeof(v), "-1");
			cb(ctx, "cpu.cfs_quota_us", v);
		} else {
			if (q)
				snprintf(v, sizeof(v), "%llu %llu", (unsigned long long)q, (unsigned long long)p);
			else
				snprintf(v, sizeof(v), "max %llu", (unsigned long long)p);
			cb(ctx, "cpu.max", v);
		}
	}
	if (r->has_burst) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)r->burst_us);
		cb(ctx, version == 1 ? "cpu.cfs_burst_us" : "cpu.max.burst", v);
	}
	if (r->lim.has_weight) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)(version == 1 ? weight_to_shares(r->lim.weight)
										: r->lim.weight));
		cb(ctx, version == 1 ? "cpu.shares" : "cpu.weight", v);
	}
	return 0;
}

struct plan_ctx {
	struct plan *p;
	struct cgfs *fs;
	const char *rel;
	bool is_new, mkdir;   /* a cgroup to make; mkdir: not yet asked for in the plan */
	const struct limit_rule *rule;
	int err;
};

static struct change *plan_find(struct plan *p, const char *rel, const char *file)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->c[i].rel, rel) && !strcmp(p->c[i].file, file))
			return &p->c[i];
	return NULL;
}

static void add_change(void *vctx, const char *file, const char *value)
{
	struct plan_ctx *c = vctx;
	struct plan *p = c->p;
	struct change *ch = plan_find(p, c->rel, file);
	char old[64] = "";

	if (!ch) {
		if (!c->is_new && cgfs_read(c->fs, c->rel, file, old, sizeof(old)) < 0) {
			/* No burst file at all: a kernel without CFS burst (before 5.14). */
			c->err = strstr(file, "burst") ? -EOPNOTSUPP : -ENOENT;
			return;
		}
		old[strcspn(old, "\n")] = 0;
		if (ARRAY_GROW(p->c, p->n, p->cap, 16)) {
			c->err = -ENOMEM;
			return;
		}
		ch = &p->c[p->n++];
		memset(ch, 0, sizeof(*ch));
		snprintf(ch->rel, sizeof(ch->rel), "%s", c->rel);
		snprintf(ch->file, sizeof(ch->file), "%s", file);
		snprintf(ch->old, sizeof(ch->old), "%s", old);
		/* The first write to a cgroup we make makes it. */
		ch->mkdir = c->mkdir;
		c->mkdir = false;
	}
	/* A later section overrides an earlier one for the same file. */
	snprintf(ch->new, sizeof(ch->new), "%s", value);
	ch->rule = c->rule;
}

static bool plan_has(struct plan *p, const char *rel)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->c[i].rel, rel))
			return true;
	return false;
}

struct match_ctx {
	const struct limit_rule *rule;
	int (*cb)(void *ctx, const char *rel, const struct limit_rule *r, bool exists);
	void *ctx;
};

static int match_one(void *vctx, const char *rel, uint64_t id)
{
	struct match_ctx *m = vctx;

	/* The root takes no limits: "*" would match it as the empty name. */
	if (!strcmp(rel, "/") || fnmatch(m->rule->pattern, rel, FNM_PATHNAME))
		return 0;
	return m->cb(m->ctx, rel, m->rule, true);
}

int limits_targets(struct limits_file *lf, struct cgfs *fs,
		   int (*cb)(void *ctx, const char *rel, const struct limit_rule *r, bool exists), void *ctx)
{
	uint64_t id;
	int err = 0;

	for (size_t i = 0; i < lf->n && !err; i++) {
		const struct limit_rule *r = &lf->r[i];
		if (r->glob) {
			struct match_ctx m = { r, cb, ctx };
			err = cgfs_walk(fs, "/", false, match_one, &m);
		} else {
			err = cb(ctx, r->pattern, r, !cgfs_id(fs, r->pattern, &id));
		}
	}
	return err;
}

struct build_ctx {
	struct plan_ctx c;
	bool (*soft_on)(void *ctx, const char *rel);
	void *soft_ctx;
};

static int plan_target(void *vctx, const char *rel, const struct limit_rule *r, bool exists)
{
	struct build_ctx *b = vctx;

	if (!exists && !r->create)
		return 0; /* gone since the file was checked: nothing to do for it */
	b->c.rule = r;
	b->c.rel = rel;
	b->c.is_new = b->c.mkdir = !exists && !plan_has(b->c.p, rel);
	rule_values(r, b->c.fs->version, b->soft_on && b->soft_on(b->soft_ctx, rel), add_change, &b->c);
	/* create = yes and nothing to set: the mkdir alone (a change with no file). */
	if (b->c.mkdir && !b->c.err)
		add_change(&b->c, "", "");
	return b->c.err;
}

int plan_build(struct limits_file *lf, struct cgfs *fs, bool (*soft_on)(void *ctx, const char *rel),
	       void *soft_ctx, struct plan *p)
{
	struct build_ctx b = { .c = { .p = p, .fs = fs }, .soft_on = soft_on, .soft_ctx = soft_ctx };
	size_t w = 0;
	int err;

	memset(p, 0, sizeof(*p));
	if ((err = limits_targets(lf, fs, plan_target, &b)) || (err = b.c.err))
		goto fail;
	/* Leave out what is as it should be (but keep the mkdir). */
	for (size_t i = 0; i < p->n; i++)
		if (p->c[i].mkdir || strcmp(p->c[i].old, p->c[i].new))
			p->c[w++] = p->c[i];
	p->n = w;
	plan_order_bursts(p);
	return 0;
fail:
	plan_free(p);
	return err;
}

/* A value in µs at the start of s; false for "-1" and "max" (no quota), or no number. */
static bool leading_us(const char *s, uint64_t *us)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*us = strtoull(s, &end, 10);
	return !errno && (!*end || *end == ' ' || *end == '\n');
}

bool burst_goes_first(const char *quota, const char *burst)
{
	uint64_t q, b;

	return leading_us(quota, &q) && leading_us(burst, &b) && q < b;
}

/* Each hierarchy's quota file and its burst file, one place for both lookups. */
static const char *const quota_burst[][2] = {
	{ "cpu.cfs_quota_us", "cpu.cfs_burst_us" },
	{ "cpu.max", "cpu.max.burst" },
};

/* The other file of the pair whose member `from` (0 quota, 1 burst) is file. */
static const char *pair_of(const char *file, int from)
{
	for (size_t i = 0; i < ARRAY_SIZE(quota_burst); i++)
		if (!strcmp(file, quota_burst[i][from]))
			return quota_burst[i][!from];
	return NULL;
}

const char *burst_file_of(const char *quota_file)
{
	return pair_of(quota_file, 0);
}

const char *quota_file_of(const char *burst_file)
{
	return pair_of(burst_file, 1);
}

static void change_key(const void *ctx, size_t i, const char **rel, const char **file)
{
	const struct plan *p = ctx;

	*rel = p->c[i].rel;
	*file = p->c[i].file;
}

/* p->c[k] becomes what p->c[order[k]] was, for each k; order is used up. */
static void plan_permute(struct plan *p, size_t *order)
{
	for (size_t k = 0; k < p->n; k++) {
		if (order[k] == k || order[k] == SIZE_MAX)
			continue;
		struct change t = p->c[k];
		for (size_t d = k;;) {
			size_t from = order[d];
			order[d] = SIZE_MAX;
			if (from == k) {
				p->c[d] = t;
				break;
			}
			p->c[d] = p->c[from];
			d = from;
		}
	}
}

/* The partner of a quota or burst change: found by hash, as a plan may hold every file of thousands of cgroups. */
void plan_order_bursts(struct plan *p)
{
	struct keyidx x = {};
	size_t *order = malloc((p->n + 1) * sizeof(*order)), o = 0;
	bool *taken = calloc(p->n + 1, sizeof(*taken));

	/* Without the memory the writes stay in their order; the kernel may then refuse one, which is rolled back. */
	if (!order || !taken || keyidx_rebuild(&x, p->n, change_key, p))
		goto out;
	for (size_t i = 0; i < p->n; i++) {
		const struct change *c = &p->c[i];
		const char *bf = burst_file_of(c->file), *qf = quota_file_of(c->file);
		size_t j = SIZE_MAX;
		if (taken[i])
			continue;
		if (bf || qf)
			j = keyidx_find(&x, c->rel, bf ? bf : qf, change_key, p);
		/* A cgroup to make has no burst yet, and its first write makes it. */
		if (j != SIZE_MAX && j > i && !c->mkdir && !p->c[j].mkdir) {
			size_t q = bf ? i : j, b = bf ? j : i;
			/* The later one of the pair goes first: pulled forward to here. */
			if (burst_goes_first(p->c[q].new, p->c[b].old) == (b == j)) {
				order[o++] = j;
				taken[j] = true;
			}
		}
		order[o++] = i;
		taken[i] = true;
	}
	plan_permute(p, order);
out:
	keyidx_free(&x);
	free(order);
	free(taken);
}

void plan_free(struct plan *p)
{
	free(p->c);
	memset(p, 0, sizeof(*p));
}

void plan_print(FILE *f, const struct plan *p)
{
	char rel[4 * PATH_MAX], old[4 * 64];

	for (size_t i = 0; i < p->n; i++) {
		const struct change *c = &p->c[i];
		text_escape(c->rel, rel, sizeof(rel));
		if (c->mkdir)
			fprintf(f, "  %s: create\n", rel);
		if (c->file[0])
			fprintf(f, "  %s %s: %s -> %s\n", rel, c->file,
				c->mkdir ? "(new)" : text_escape(c->old, old, sizeof(old)), c->new);
	}
}

int plan_apply(struct cgfs *fs, struct plan *p, const volatile int *stop, const struct change **failed)
{
	size_t i;
	int err = 0;

	p->unrestored = 0;
	for (i = 0; i < p->n; i++) {
		struct change *c = &p->c[i];
		if (stop && *stop) {
			err = -EINTR;
			break;
		}
		if (c->mkdir && (err = cgfs_enable_cpu_in_parent(fs, c->rel, &c->enabled_cpu)))
			break;
		/* -EEXIST: made by someone else since the plan; never ours to remove. */
		if (c->mkdir && (err = cgfs_mkdir(fs, c->rel)) && err != -EEXIST)
			break;
		c->made = c->mkdir && !err;
		err = 0;
		if (c->mkdir && c->file[0]) {
			/* A new cgroup's old value is the kernel's default: read it for rollback. */
			char old[64];
			if (cgfs_read(fs, c->rel, c->file, old, sizeof(old)) >= 0) {
				old[strcspn(old, "\n")] = 0;
				snprintf(((struct change *)c)->old, sizeof(c->old), "%s", old);
			}
		}
		if (c->file[0] && (err = cgfs_write(fs, c->rel, c->file, c->new)))
			break;
	}
	if (!err)
		return 0;
	*failed = err == -EINTR ? NULL : &p->c[i];
	/*
	 * Roll back in reverse order: the kernel refuses a quota below its
	 * burst, so the order of writes matters both ways. Restore the values
	 * first, then remove the cgroups this run made, empty ones only.
	 */
	for (size_t j = i; j-- > 0;)
		if (p->c[j].file[0] && (!p->c[j].made || strcmp(p->c[j].old, p->c[j].new)) &&
		    cgfs_write(fs, p->c[j].rel, p->c[j].file, p->c[j].old))
			p->unrestored++;
	for (size_t j = i + 1; j-- > 0;) {
		if (j < p->n && p->c[j].made && cgfs_rmdir(fs, p->c[j].rel))
			p->unrestored++;
		if (j < p->n && p->c[j].enabled_cpu) {
			char parent[PATH_MAX];
			cgpath_parent(p->c[j].rel, parent, sizeof(parent));
			if (cgfs_write(fs, parent, "cgroup.subtree_control", "-cpu"))
				p->unrestored++;
		}
	}
	return err;
}
