// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* top's screen (screen.h): ncurses draws, the report's own table gives the rows. */
#include <curses.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/idtab.h"
#include "lib/util.h"
#include "report/hist.h"
#include "ui/screen.h"
#include "ui/tree.h"

/* The rows drawn last, in order: where the arrow keys move the highlight and fold the tree. */
struct drawn_row {
	uint64_t id;     /* the cgroup's (a task row: the task's) */
	uint64_t cg;     /* its cgroup (a cgroup row: id) */
	uint64_t parent; /* the tree's row it hangs from; 0: a root, or not a tree */
	bool kids;       /* rows hang from it (drawn, or folded away) */
};
/* The cgroups whose rows below them are folded away (Left, -). */
struct folded { uint64_t id; };
/* A limited or throttled cgroup's THR%, interval by interval (screen_record). */
struct thr_hist {
	uint64_t id;
	uint64_t last;                   /* the interval of its newest figure */
	float pct[SCREEN_THR_HIST];      /* interval i's at i % SCREEN_THR_HIST */
};

/*
 * The screen's state. There is one terminal, and a fatal signal's handler
 * and atexit must find it, so there is one screen: S.
 */
static struct screen {
	bool on;                      /* the terminal is ours (between screen_open and screen_close) */
	bool colour;
	bool typing;                  /* '/' pressed: keys go to the filter until Enter or Esc */
	bool help;                    /* '?' pressed: the keys' help until the next key */
	char typed[SCREEN_FILTER_MAX];
	struct utsname host;          /* the header's host and kernel, read at screen_open */
	struct drawn_row *drawn;
	size_t ndrawn, drawncap;
	struct idtab folds;
	struct idtab hist;
	uint64_t intervals;           /* recorded so far */
} S = {
	.folds = IDTAB_INIT(struct folded),
	.hist = IDTAB_INIT(struct thr_hist),
};

static bool is_folded(void *ctx, uint64_t id)
{
	return idtab_find(&S.folds, id) != NULL;
}

enum { PAIR_HEAD = 1, PAIR_THR, PAIR_TITLE, PAIR_P99 };

bool screen_wanted(bool batch, bool json)
{
	const char *t = getenv("TERM");

	if (batch || json || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return false;
	/* A terminal without cursor addressing cannot redraw in place: lines, then. */
	return t && *t && strcmp(t, "dumb");
}

void screen_close(void)
{
	if (!S.on)
		return;
	S.on = false;
	endwin();
}

void screen_record(const struct report *r)
{
	S.intervals++;
	for (size_t i = 0; i < r->n; i++) {
		const struct row *w = &r->rows[i];
		bool fresh;
		if (w->thr_pct <= 0 && !(w->k.ok && w->k.quota_us >= 0))
			continue;
		struct thr_hist *h = idtab_put(&S.hist, w->id, &fresh);
		if (!h)
			return; /* out of memory: a shorter history */
		/* The intervals it was not in (idle, or not limited then): 0 (a new entry is zeroed). */
		if (!fresh) {
			uint64_t from = h->last + 1;
			if (S.intervals > SCREEN_THR_HIST && from < S.intervals - SCREEN_THR_HIST + 1)
				from = S.intervals - SCREEN_THR_HIST + 1;
			for (uint64_t k = from; k < S.intervals; k++)
				h->pct[k % SCREEN_THR_HIST] = 0;
		}
		h->pct[S.intervals % SCREEN_THR_HIST] = w->thr_pct;
		h->last = S.intervals;
	}
	/* Cgroups gone or idle for the whole history: their entries go (a host where containers come and go). */
	if (S.intervals % SCREEN_THR_HIST == 0) {
		for (size_t i = 0; i < S.hist.cap; i++) {
			struct thr_hist *h = idtab_at(&S.hist, i);
			if (h && h->last + SCREEN_THR_HIST <= S.intervals && idtab_del(&S.hist, h->id))
				i--; /* entries move on a delete: this one again */
		}
	}
}

/*
 * A crash of the drawing code must not leave the terminal raw and blank:
 * the terminal back, then the signal's own action (a core dump, where
 * enabled). endwin is not async-signal-safe; a process about to die of
 * the signal has nothing left to lose by calling it.
 */
static void fatal(int sig)
{
	screen_close();
	signal(sig, SIG_DFL);
	raise(sig);
}

int screen_open(struct screen_view *v)
{
	static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	static bool registered;

	if (!newterm(NULL, stdout, stdin))
		return -1;
	S.on = true;
	if (!registered) {
		atexit(screen_close);
		registered = true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fatal_sigs); i++)
		signal(fatal_sigs[i], fatal);
	uname(&S.host);
	cbreak();
	noecho();
	set_escdelay(25); /* Esc alone (the filter's cancel) needs no second's wait */
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	/* Colour only where it helps reading, and never where NO_COLOR is set (no-color.org). */
	const char *nc = getenv("NO_COLOR");
	S.colour = has_colors() && !(nc && *nc);
	if (S.colour) {
		start_color();
		use_default_colors();
		init_pair(PAIR_HEAD, COLOR_CYAN, -1);
		init_pair(PAIR_THR, COLOR_RED, -1);
		init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_P99, COLOR_YELLOW, -1);
	}
	v->quit = v->resort = false;
	S.typing = S.help = false;
	return 0;
}

static const char *const sort_names[] = { "cpu", "p50", "p99", "max", "wakeups", "vol", "invol", "thr", "path" };

/* Whether a row shows under the filter: its name or its WHO holds the text. */
static bool row_matches(const struct row *w, const char *filter)
{
	char name[PATH_MAX + 32], who[1024];
	const char *x;

	if (!*filter)
		return true;
	if (strstr(row_name(w, name, sizeof(name)), filter))
		return true;
	return (x = row_who(w, who, sizeof(who))) && strstr(x, filter);
}

/* One line at y, clipped to the window's width, in attribute a. */
static void line_at(int y, const char *s, size_t len, attr_t a)
{
	int cols = COLS;

	if (y >= LINES)
		return;
	attron(a);
	mvaddnstr(y, 0, s, (int)len < cols ? (int)len : cols);
	attroff(a);
}

static void draw_help(void)
{
	static const char *const lines[] = {
		"cgsched top: keys",
		"",
		"  <  >      sort by the column left or right of the one in use",
		"  c l m     sort by CPU%, run-queue p99 (latency), run-queue max",
		"  w t n     sort by wake-ups, throttling (THR%), name (path)",
		"  /         filter: rows whose path or WHO holds the text (Enter; Esc clears)",
		"  Up Down   move the highlighted row",
		"  Left -    fold the rows below the highlighted cgroup (again: to its parent)",
		"  Right +   unfold them",
		"  Enter     show the cgroup's detail (Esc: back); on a task row, its cgroup's",
		"  V         the rows by path as the cgroup tree, or flat in the sort's order",
		"  T         a row per task (process; thread with --threads), or per cgroup",
		"  g         group by path, unit, container or pod, in turn (next interval on)",
		"  p         pause: the screen stays, tracing goes on",
		"  ?         this help (any key closes it)",
		"  q         quit (the summary since start is printed after)",
		"",
		"Red rows are throttled. Yellow rows have a run-queue p99 over --mark-p99.",
		"Tree: a cgroup sits under its nearest ancestor with a row; [+N]: N rows folded.",
	};
	erase();
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		line_at(1 + i, lines[i], strlen(lines[i]), i ? A_NORMAL : A_BOLD);
	refresh();
}

/* Text lines at y on, from a stream's text; the next free line. */
static int lines_at(int y, const char *text, attr_t a)
{
	for (const char *p = text, *e; p && *p && y < LINES - 1; p = e + 1, y++) {
		e = strchrnul(p, '\n');
		line_at(y, p, e - p, a);
		if (!*e)
			return y + 1;
	}
	return y;
}

/* The detail's tasks: the first SCREEN_DETAIL_TASKS of the cgroup's, in the sort's order. */
#define SCREEN_DETAIL_TASKS 8
static void detail_tasks(FILE *m, const struct report *r, const struct row *w, const struct screen_head *h)
{
	const struct task_report *tr = h->tasks;
	struct task_report one = { .interval_ns = tr ? tr->interval_ns : 0, .threads = tr && tr->threads };
	struct task_row rows[SCREEN_DETAIL_TASKS];
	size_t all = 0;

	if (r->group_by) {
		fprintf(m, "Its tasks: with a row per cgroup (g to path)\n\n");
		return;
	}
	if (!tr || h->tasks_partial) {
		fprintf(m, "Its tasks: recorded from now on, shown from the next interval\n\n");
		return;
	}
	one.rows = rows;
	for (size_t i = 0; i < tr->n; i++) {
		if (tr->rows[i].t->cgid != w->id)
			continue;
		if (one.n < SCREEN_DETAIL_TASKS)
			rows[one.n++] = tr->rows[i];
		all++;
	}
	if (!all) {
		fprintf(m, "Its tasks: none ran or waited this interval\n\n");
		return;
	}
	fprintf(m, "Its tasks this interval (%zu%s):\n", all, all > one.n ? ", the first shown" : "");
	task_table(m, &one, 0);
	fputc('\n', m);
}

/*
 * One cgroup: its row, its tasks, its run-queue histogram in runqlat's layout, its
 * throttling as a bar per interval over the last minute (as far as the
 * history and the window go), and with --why its causes.
 */
static void draw_detail(int y, const struct report *r, const struct row *w, const struct screen_head *h)
{
	struct report one = *r;
	char *text = NULL, buf[256], dur[16];
	size_t len = 0;
	FILE *m;

	one.n = 1;
	one.rows = (struct row *)w;
	if ((m = open_memstream(&text, &len))) {
		report_table(m, &one, 0);
		fputc('\n', m);
		detail_tasks(m, r, w, h);
		fprintf(m, "Run-queue latency of its tasks this interval:\n");
		if (w->s->c.runq_count)
			hist_print(m, w->s->c.runq_slots, CGS_HIST_SLOTS, r->hist_ms ? "msecs" : "usecs");
		else
			fprintf(m, "     (no wait)\n");
		fclose(m);
		y = lines_at(y, text, A_NORMAL);
		free(text);
	}
	/* Throttling, newest right: one column an interval, 5 lines high, 100 % (or the most, if more) at the top. */
	uint64_t want = h->interval_ns ? 60000000000ULL / h->interval_ns : 60;
	size_t cols = COLS > 12 ? COLS - 12 : 0;
	size_t nb = want < SCREEN_THR_HIST ? want : SCREEN_THR_HIST;
	nb = nb < S.intervals ? nb : S.intervals;
	nb = nb < cols ? nb : cols;
	const struct thr_hist *t = idtab_find(&S.hist, w->id);
	snprintf(buf, sizeof(buf), "Throttled (THR%%) per interval of %s, the last %zu, newest right:%s",
		 fmt_duration(dur, sizeof(dur), h->interval_ns), nb,
		 w->k.ok && w->k.quota_us >= 0 ? "" : "  (no quota of its own)");
	line_at(++y, buf, strlen(buf), A_BOLD);
	y++;
	float v[SCREEN_THR_HIST], top = 100;
	for (size_t i = 0; i < nb; i++) {
		uint64_t k = S.intervals - nb + 1 + i;
		v[i] = t && k <= t->last && k + SCREEN_THR_HIST > t->last ? t->pct[k % SCREEN_THR_HIST] : 0;
		if (v[i] > top)
			top = v[i];
	}
	for (int lvl = 5; lvl >= 1 && y < LINES - 1; lvl--, y++) {
		snprintf(buf, sizeof(buf), "%6.0f%% |", lvl == 5 ? top : lvl == 1 ? 0 : top * (lvl - 1) / 4);
		if (lvl != 5 && lvl != 1)
			snprintf(buf, sizeof(buf), "        |");
		mvaddstr(y, 0, buf);
		for (size_t i = 0; i < nb; i++) {
			/* A cell is filled when the value reaches its lower edge (any throttling fills the lowest). */
			bool fill = v[i] > 0 && v[i] >= top * (lvl - 1) / 5;
			if (fill && S.colour)
				attron(COLOR_PAIR(PAIR_THR));
			mvaddch(y, 9 + i, fill ? '#' : ' ');
			if (fill && S.colour)
				attroff(COLOR_PAIR(PAIR_THR));
		}
	}
	/* --why: the causes' sentence of this row. */
	if (w->why && (m = open_memstream(&text, &len))) {
		report_why_lines(m, &one);
		fclose(m);
		lines_at(y + 1, text, A_NORMAL);
		free(text);
	}
}

static const struct row *row_of(const struct report *r, uint64_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].id == id)
			return &r->rows[i];
	return NULL;
}

uint64_t screen_tasks_wanted(const struct screen_view *v)
{
	if (v->tasks)
		return CGS_TASK_CG_ALL;
	return v->detail && v->group == GROUP_PATH ? v->sel : 0;
}

/* Whether a task row shows under the filter: its command, its id or its cgroup's path holds the text. */
static bool task_matches(const struct task_row *w, const char *filter)
{
	char id[16];

	if (!*filter)
		return true;
	snprintf(id, sizeof(id), "%u", w->t->id);
	return strstr(w->t->comm, filter) || !strcmp(id, filter) || (w->path && strstr(w->path, filter));
}

/* The colour of a row's line: red when throttled, yellow when its p99 is over the mark. */
static attr_t row_attr(double thr_pct, double p99_ns, uint64_t nwaits, const struct screen_view *v)
{
	if (!S.colour)
		return A_NORMAL;
	if (thr_pct > 0)
		return COLOR_PAIR(PAIR_THR);
	if (v->mark_p99_ns && nwaits && p99_ns > v->mark_p99_ns)
		return COLOR_PAIR(PAIR_P99);
	return A_NORMAL;
}

/* Where drawn rows are kept: room for n. */
static bool drawn_room(size_t n)
{
	if (n > S.drawncap) {
		struct drawn_row *d = realloc(S.drawn, n * sizeof(*d));
		if (!d)
			return false;
		S.drawn = d;
		S.drawncap = n;
	}
	return true;
}

/* A table's text drawn from line y: its first line the titles, then line i+1 of row i in attrs[i]. */
static void table_at(int y, const char *text, const attr_t *attrs, size_t n)
{
	for (const char *p = text, *e; p && *p && y < LINES - 1; p = e + 1, y++) {
		e = strchrnul(p, '\n');
		size_t i = y - 5; /* the row this line is (the first line: the columns' names) */
		attr_t a = y == 4 ? (S.colour ? COLOR_PAIR(PAIR_TITLE) : A_REVERSE) : i < n ? attrs[i] : A_NORMAL;
		line_at(y, p, e - p, a);
		if (!*e)
			break;
	}
}

/* The task rows (T, --tasks): the filter's, in the sort's order, as far as cap. */
static void draw_tasks(const struct screen_head *h, const struct screen_view *v, size_t cap, size_t *shown)
{
	const struct task_report *tr = h->tasks;
	struct task_report f = { .interval_ns = tr ? tr->interval_ns : 0, .threads = tr && tr->threads };
	attr_t *attrs = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	*shown = 0;
	S.ndrawn = 0;
	if (!tr || !(f.rows = malloc((cap ? cap : 1) * sizeof(*f.rows))) || !(attrs = malloc((cap ? cap : 1) * sizeof(*attrs))))
		goto out;
	for (size_t i = 0; i < tr->n; i++) {
		if (!task_matches(&tr->rows[i], v->filter))
			continue;
		(*shown)++;
		if (f.n < cap)
			f.rows[f.n++] = tr->rows[i];
	}
	if (drawn_room(f.n))
		for (size_t i = 0; i < f.n; i++)
			S.drawn[S.ndrawn++] = (struct drawn_row){ .id = f.rows[i].t->id, .cg = f.rows[i].t->cgid };
	for (size_t i = 0; i < f.n; i++) {
		attrs[i] = row_attr(0, f.rows[i].runq_p99_ns, f.rows[i].t->runq_count, v);
		if (f.rows[i].t->id == v->sel_task || (!v->sel_task && i == 0))
			attrs[i] |= A_BOLD | A_UNDERLINE;
	}
	if ((m = open_memstream(&text, &len))) {
		task_table(m, &f, 0);
		fclose(m);
		table_at(4, text, attrs, f.n);
		free(text);
	}
out:
	free(attrs);
	free(f.rows);
}

/* The cgroup rows: the filter's, as the tree (or flat, in the sort's order), as far as cap. */
static void draw_rows(const struct report *r, const struct screen_view *v, size_t cap, size_t *shown)
{
	bool tree = !v->flat && !r->group_by;
	size_t *idx = malloc((r->n ? r->n : 1) * sizeof(*idx)), n = 0, nl;
	struct tree_line *lines = NULL;
	struct report f = *r;
	attr_t *attrs = NULL;
	char *names = NULL, *text = NULL;
	size_t len = 0;
	FILE *m;
	enum { NAME = 48 };

	*shown = 0;
	S.ndrawn = 0;
	f.n = 0;
	f.rows = NULL;
	if (!idx)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (row_matches(&r->rows[i], v->filter))
			idx[n++] = i;
	*shown = n;
	/* Flat: the first cap in order. The tree needs every row the filter lets through to place them. */
	if (tree && n && (lines = malloc(n * sizeof(*lines)))) {
		nl = tree_lines(r->rows, idx, n, is_folded, NULL, lines);
	} else {
		tree = false;
		nl = n;
	}
	size_t k = nl < cap ? nl : cap;
	f.rows = malloc((k ? k : 1) * sizeof(*f.rows));
	attrs = malloc((k ? k : 1) * sizeof(*attrs));
	names = tree ? malloc((k ? k : 1) * NAME) : NULL;
	if (!f.rows || !attrs || (tree && !names) || !drawn_room(k))
		goto out;
	for (size_t i = 0; i < k; i++) {
		const struct row *w = &r->rows[tree ? lines[i].row : idx[i]];
		f.rows[i] = *w;
		if (tree && w->path)
			f.rows[i].path = tree_name(r->rows, &lines[i], names + i * NAME, NAME, 40);
		S.drawn[S.ndrawn++] = (struct drawn_row){
			.id = w->id, .cg = w->id,
			.parent = tree && lines[i].parent != SIZE_MAX ? r->rows[lines[i].parent].id : 0,
			.kids = tree && lines[i].kids,
		};
		attrs[i] = row_attr(w->thr_pct, w->runq_p99_ns, w->s->c.runq_count, v);
		if (w->id == v->sel || (!v->sel && i == 0))
			attrs[i] |= A_BOLD | A_UNDERLINE;
	}
	f.n = k;
	if ((m = open_memstream(&text, &len))) {
		report_table(m, &f, 0);
		fclose(m);
		table_at(4, text, attrs, f.n);
		free(text);
	}
out:
	free(names);
	free(attrs);
	free(f.rows);
	free(lines);
	free(idx);
}

void screen_draw(const struct screen_head *h, const struct report *r, const struct screen_view *v)
{
	char buf[512], dur[16];

	if (!S.on)
		return;
	if (S.help) {
		draw_help();
		return;
	}
	erase();
	/* Header: the host, what traces it, and the state of the keys. */
	snprintf(buf, sizeof(buf), "cgsched top - %s, Linux %s, %d CPUs, every %s%s", S.host.nodename, S.host.release,
		 h->ncpus, fmt_duration(dur, sizeof(dur), h->interval_ns), v->paused ? "  [paused]" : "");
	line_at(0, buf, strlen(buf), A_BOLD);
	line_at(1, h->desc, strlen(h->desc), S.colour ? COLOR_PAIR(PAIR_HEAD) : A_NORMAL);
	/* The grouping: what the rows are, as the key asked (shown from the interval after it). */
	size_t groups = 0, members = 0, o = 0;
	for (size_t i = 0; i < r->n; i++) {
		groups += r->rows[i].members > 0;
		members += r->rows[i].members;
	}
	if (v->tasks && !v->detail)
		o += snprintf(buf, sizeof(buf), "rows by task (%s)", h->tasks && h->tasks->threads ? "threads" : "processes");
	else
		o += snprintf(buf, sizeof(buf), "rows by %s%s", r->group_by ? r->group_by : group_by_name(GROUP_PATH),
			      !r->group_by && !v->flat ? " (tree)" : "");
	if (r->group_by && !(v->tasks && !v->detail))
		o += snprintf(buf + o, sizeof(buf) - o, ": %zu group%s of %zu cgroup%s, %zu cgroup%s in none",
			      groups, groups == 1 ? "" : "s", members, members == 1 ? "" : "s", r->n - groups,
			      r->n - groups == 1 ? "" : "s");
	if (strcmp(r->group_by ? r->group_by : group_by_name(GROUP_PATH), group_by_name(v->group)) && o < sizeof(buf))
		snprintf(buf + o, sizeof(buf) - o, "; by %s from the next interval", group_by_name(v->group));
	line_at(3, buf, strlen(buf), A_NORMAL);
	if (v->detail) {
		const struct row *sel = row_of(r, v->sel);
		snprintf(buf, sizeof(buf), "%zu row%s active; drops %llu%s", r->n, r->n == 1 ? "" : "s",
			 (unsigned long long)h->drops, h->drops_notable ? " (figures incomplete)" : "");
		line_at(2, buf, strlen(buf), h->drops_notable && S.colour ? COLOR_PAIR(PAIR_THR) : A_NORMAL);
		if (sel) {
			draw_detail(4, r, sel, h);
		} else {
			snprintf(buf, sizeof(buf), "cgroup id %llu: not active this interval (no task of it ran or waited)",
				 (unsigned long long)v->sel);
			line_at(4, buf, strlen(buf), A_NORMAL);
		}
		snprintf(buf, sizeof(buf), "Esc back  q quit  p pause  ? help");
		line_at(LINES - 1, buf, strlen(buf), A_REVERSE);
		refresh();
		return;
	}
	/* The rows the filter lets through: counted, and drawn as far as the window has room. */
	int room = LINES - 6;
	size_t cap = room > 0 ? (size_t)room : 0, shown = 0, total = v->tasks ? (h->tasks ? h->tasks->n : 0) : r->n;
	if (v->tasks)
		draw_tasks(h, v, cap, &shown);
	else
		draw_rows(r, v, cap, &shown);
	snprintf(buf, sizeof(buf), "%zu %s%s active, %zu shown; sort %s%s%s%s; drops %llu%s%s", total,
		 v->tasks ? "task" : "row", total == 1 ? "" : "s", shown,
		 sort_names[v->sort], *v->filter ? "; filter \"" : "", v->filter, *v->filter ? "\"" : "",
		 (unsigned long long)h->drops, h->drops_notable ? " (figures incomplete)" : "",
		 v->tasks && h->tasks_partial ? "; tasks from the next interval" : "");
	line_at(2, buf, strlen(buf), h->drops_notable && S.colour ? COLOR_PAIR(PAIR_THR) : A_NORMAL);
	/* Footer: the keys, or the filter being typed. */
	if (S.typing)
		snprintf(buf, sizeof(buf), "filter: %s_   (Enter: apply, Esc: clear)", S.typed);
	else
		snprintf(buf, sizeof(buf), "q quit  p pause  < > c l m w t n sort  / filter  g group  V tree  T tasks  "
			 "Up Down Left Right Enter  ? help");
	line_at(LINES - 1, buf, strlen(buf), A_REVERSE);
	refresh();
}

static void sort_by(struct screen_view *v, enum sort_key k)
{
	if (v->sort != k) {
		v->sort = k;
		v->resort = true;
	}
}

/* The drawn row of the highlight (the first where none is chosen); ndrawn when nothing is drawn. */
static size_t drawn_at(const struct screen_view *v)
{
	size_t at = 0;
	uint64_t want = v->tasks ? v->sel_task : v->sel;

	while (at < S.ndrawn && S.drawn[at].id != want)
		at++;
	return at == S.ndrawn && S.ndrawn ? 0 : at;
}

static void select_at(struct screen_view *v, size_t at)
{
	if (at >= S.ndrawn)
		return;
	if (v->tasks)
		v->sel_task = S.drawn[at].id;
	else
		v->sel = S.drawn[at].id;
}

/* Left (-): fold the rows under the highlighted one; where there are none, or folded already, to its parent. */
static void fold(struct screen_view *v, bool to_parent)
{
	size_t at = drawn_at(v);
	bool fresh;

	if (at >= S.ndrawn || v->tasks)
		return;
	if (S.drawn[at].kids && !idtab_find(&S.folds, S.drawn[at].id)) {
		idtab_put(&S.folds, S.drawn[at].id, &fresh);
		return;
	}
	if (to_parent && S.drawn[at].parent)
		v->sel = S.drawn[at].parent;
}

/* Right (+): the rows under the highlighted one back. */
static void unfold(struct screen_view *v)
{
	size_t at = drawn_at(v);

	if (at < S.ndrawn && !v->tasks)
		idtab_del(&S.folds, S.drawn[at].id);
}

/* Up and Down: the highlight one row up or down. */
static void key_move(struct screen_view *v, int c)
{
	size_t at = drawn_at(v);

	if (c == KEY_UP && at > 0 && at < S.ndrawn)
		at--;
	else if (c == KEY_DOWN && at + 1 < S.ndrawn)
		at++;
	select_at(v, at);
}

/* Enter: the highlighted cgroup's detail (a task row: its cgroup's). */
static void key_detail(struct screen_view *v, int c)
{
	size_t at = drawn_at(v);

	(void)c;
	if (at >= S.ndrawn)
		return;
	v->sel = S.drawn[at].cg;
	v->detail = v->sel != 0;
}

static void key_quit(struct screen_view *v, int c) { (void)c; v->quit = true; }
static void key_fold(struct screen_view *v, int c) { fold(v, c == KEY_LEFT); }
static void key_unfold(struct screen_view *v, int c) { (void)c; unfold(v); }
static void key_pause(struct screen_view *v, int c) { (void)c; v->paused = !v->paused; }
static void key_help(struct screen_view *v, int c) { (void)v; (void)c; S.help = true; }
static void key_flat(struct screen_view *v, int c) { (void)c; v->flat = !v->flat; }

/* /: keys go to the filter from now, which starts as the one in force. */
static void key_filter(struct screen_view *v, int c)
{
	(void)c;
	S.typing = true;
	snprintf(S.typed, sizeof(S.typed), "%s", v->filter);
}

static void key_sort_prev(struct screen_view *v, int c) { (void)c; sort_by(v, v->sort ? v->sort - 1 : SORT_PATH); }
static void key_sort_next(struct screen_view *v, int c)
{
	(void)c;
	sort_by(v, v->sort == SORT_PATH ? SORT_CPU : v->sort + 1);
}

/* g: a row per cgroup, unit, container or pod, in turn. */
static void key_group(struct screen_view *v, int c)
{
	(void)c;
	v->group = v->group == GROUP_POD ? GROUP_PATH : v->group + 1;
	v->sel = 0; /* a row of another kind */
	v->detail = v->tasks = false;
}

/* T: a row per task, or per cgroup again. */
static void key_tasks(struct screen_view *v, int c)
{
	(void)c;
	v->tasks = !v->tasks;
	v->sel_task = 0;
	if (v->tasks)
		v->group = GROUP_PATH; /* tasks are per cgroup */
}

/* The keys and what each does; sort keys carry their sort. The help (draw_help) names them. */
static const struct key_action {
	int key;
	void (*act)(struct screen_view *v, int c);
	int sort; /* with act NULL: sort by this */
} key_table[] = {
	{ 'q', key_quit, 0 },         { 'Q', key_quit, 0 },
	{ KEY_UP, key_move, 0 },      { KEY_DOWN, key_move, 0 },
	{ KEY_LEFT, key_fold, 0 },    { '-', key_fold, 0 },
	{ KEY_RIGHT, key_unfold, 0 }, { '+', key_unfold, 0 },
	{ '\n', key_detail, 0 },      { KEY_ENTER, key_detail, 0 },
	{ 'p', key_pause, 0 },        { ' ', key_pause, 0 },
	{ '?', key_help, 0 },         { 'h', key_help, 0 },
	{ '/', key_filter, 0 },
	{ '<', key_sort_prev, 0 },    { '>', key_sort_next, 0 },
	{ 'g', key_group, 0 },        { 'V', key_flat, 0 },         { 'T', key_tasks, 0 },
	{ 'c', NULL, SORT_CPU },   { 'l', NULL, SORT_P99 },   { 'm', NULL, SORT_MAX },
	{ 'w', NULL, SORT_WAKEUPS }, { 't', NULL, SORT_THR }, { 'n', NULL, SORT_PATH },
};

/* A key S.typed into the filter: Enter sets it, Esc clears it, Backspace takes a character back. */
static void key_typed(struct screen_view *v, int c)
{
	size_t n = strlen(S.typed);

	if (c == '\n' || c == KEY_ENTER) {
		S.typing = false;
		snprintf(v->filter, sizeof(v->filter), "%s", S.typed);
	} else if (c == 27) { /* Esc: no filter */
		S.typing = false;
		v->filter[0] = 0;
	} else if ((c == KEY_BACKSPACE || c == 127 || c == 8) && n) {
		S.typed[n - 1] = 0;
	} else if (c >= ' ' && c < 127 && n + 1 < sizeof(S.typed)) {
		S.typed[n] = (char)c;
		S.typed[n + 1] = 0;
	}
}

bool screen_keys(struct screen_view *v)
{
	bool changed = false;
	int c;

	while (S.on && (c = getch()) != ERR) {
		changed = true;
		if (c == KEY_RESIZE)
			continue; /* ncurses has the new size: S.drawn again below */
		if (S.help) {
			S.help = false;
			continue;
		}
		if (S.typing) {
			key_typed(v, c);
			continue;
		}
		if (v->detail && (c == 27 || c == '\n' || c == KEY_ENTER || c == KEY_BACKSPACE || c == KEY_LEFT)) {
			v->detail = false;
			continue;
		}
		for (size_t i = 0; i < sizeof(key_table) / sizeof(key_table[0]); i++) {
			if (key_table[i].key != c)
				continue;
			if (key_table[i].act)
				key_table[i].act(v, c);
			else
				sort_by(v, key_table[i].sort);
			break;
		}
	}
	return changed;
}
