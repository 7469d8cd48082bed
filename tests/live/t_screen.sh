# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# top on a terminal (ui/screen.c): driven in tmux, which is a real terminal
# to it, with keys sent and the pane read back as the user sees it.

# scr_need: tmux, or the test is skipped (make deps installs it).
scr_need() {
	command -v tmux >/dev/null || { echo "no tmux here: a test for the host, where make deps installs it"; exit 77; }
}

# scr_start: a tmux server of this test's own, one window of 200x40 with a
# shell; TM runs tmux against it. Its server is killed with the test.
scr_start() {
	# Its socket in the test's directory: removed with it, even after a kill -9.
	TM="tmux -S $TMP/tmux.sock"
	$TM new-session -d -x 200 -y 40 sh || fail "tmux would not start"
	CGS_BG="$CGS_BG $($TM display -p '#{pid}')"
}

# scr_wait PATTERN [SECONDS]: until the pane shows a line matching the
# extended regex PATTERN (bounded, default 10 s, scaled); the pane in $TMP/pane.
scr_wait() {
	deadline "${2:-10}"
	until $TM capture-pane -p >"$TMP/pane" && grep -Eq "$1" "$TMP/pane"; do
		past_deadline && fail "the screen never showed /$1/: $(cat "$TMP/pane")"
		nap 0.2
	done
}

# scr_field FILE ROWPREFIX COLUMN: the value in COLUMN of the table row
# starting with ROWPREFIX, the columns found by the header line's names.
scr_field() {
	awk -v row="$2" -v col="$3" '
		$1 == "CGROUP" { for (i = 1; i <= NF; i++) if ($i == col) c = i }
		c && index($0, row) == 1 { print $c; exit }' "$1"
}

# The screen shows a throttled cgroup's row with its figures, redraws in
# place, sorts by the keys, filters, shows its help, follows the window's
# size, and gives the terminal back as it was (stty's settings, the shell's
# screen) on q, SIGTERM, Ctrl-C and a crash (SIGSEGV). Two cgroups on
# CPU 1: A with a quota of 20 % of a CPU, throttled every period; B
# unlimited, taking the rest (~80 %).
test_top_screen() {
	scr_need
	cg_create scra && A=$CG
	cg_create scrb && B=$CG
	cg_quota "$A" 20000 100000
	cg_spawn "$A" "$CGWORK" burn 1 60 1
	cg_spawn "$B" "$CGWORK" burn 1 60 1
	scr_start
	$TM send-keys "stty -g >$TMP/stty.before; $CGSCHED top -q -i 0.5 --cgroup $A --cgroup $B; stty -g >$TMP/stty.after; echo CGS-DONE" Enter
	# Both rows, A's throttled, after an interval or two of both running.
	scr_wait "^$B "
	deadline 10
	while :; do
		$TM capture-pane -p >"$TMP/pane"
		cpu=$(scr_field "$TMP/pane" "$A " CPU%)
		thr=$(scr_field "$TMP/pane" "$A " THR%)
		awk -v t="${thr:-0}" 'BEGIN { exit !(t > 0) }' && break
		past_deadline && fail "A's row never showed throttling: $(cat "$TMP/pane")"
		nap 0.2
	done
	cat "$TMP/pane"
	echo "A: CPU% $cpu, THR% $thr"
	# 20 % of a CPU over an interval of 500 ms: 5 periods of 100 ms, of
	# which the two at its ends are partial, each giving 0-20 ms of its
	# quota, so 80-120 ms in the interval: 16-24 %.
	awk -v c="$cpu" 'BEGIN { exit !(c >= 16 && c <= 24) }' || fail "A's CPU% $cpu on the screen, its quota 20 %"
	awk -v t="$thr" 'BEGIN { exit !(t > 0) }' || fail "A's THR% $thr on the screen: it is throttled every period"
	grep -q "^q quit" "$TMP/pane" || fail "no footer of keys"
	# Redrawn in place: one header, however many intervals went by.
	[ "$(grep -c '^cgsched top - ' "$TMP/pane")" = 1 ] || fail "the header is there more than once: not one screen"
	# Sorted by CPU% (default): B first; by THR% (t): A first; by name (n): A first.
	first=$(grep -E "^/cgs-test-" "$TMP/pane" | head -n 1 | cut -d' ' -f1)
	[ "$first" = "$B" ] || fail "sorted by CPU%, the first row is $first, not B ($B)"
	$TM send-keys t
	scr_wait "sort thr"
	first=$(grep -E "^/cgs-test-" "$TMP/pane" | head -n 1 | cut -d' ' -f1)
	[ "$first" = "$A" ] || fail "sorted by THR%, the first row is $first, not A ($A)"
	$TM send-keys c
	scr_wait "sort cpu"
	# The filter: only B's row.
	$TM send-keys /
	$TM send-keys -l -- -scrb
	$TM send-keys Enter
	scr_wait 'filter "-scrb"'
	grep -q "^$B " "$TMP/pane" && ! grep -q "^$A " "$TMP/pane" ||
		fail "filtered by -scrb, the rows are: $(grep -E '^/cgs-test-' "$TMP/pane")"
	$TM send-keys / Escape
	scr_wait "2 shown"
	# Help, and any key closes it.
	$TM send-keys '?'
	scr_wait "cgsched top: keys"
	$TM send-keys x
	scr_wait "^q quit"
	# A's detail: Down from B (first by CPU%) to A, Enter; its row, its
	# run-queue histogram (runqlat's layout), its throttling per interval.
	nap 1.5 # a few intervals of history
	$TM send-keys Down Enter
	scr_wait "^Throttled \(THR%\) per interval"
	grep -q "^$A " "$TMP/pane" || fail "the detail is not A's: $(cat "$TMP/pane")"
	grep -q "usecs *: count *distribution" "$TMP/pane" || fail "no run-queue histogram in A's detail: $(cat "$TMP/pane")"
	grep -A5 "^Throttled" "$TMP/pane" | grep -q "|#" || fail "no throttled interval drawn in A's detail: $(cat "$TMP/pane")"
	sed -n '/^Throttled/,/^ *0% |/p' "$TMP/pane"
	$TM send-keys Escape
	scr_wait "^q quit"
	# g: rows by unit (these two cgroups in none: rows of their own), container, pod, back to path.
	grep -q "^rows by path (tree)$" "$TMP/pane" || fail "no grouping line: $(cat "$TMP/pane")"
	$TM send-keys g
	scr_wait "^rows by unit: 0 groups of 0 cgroups, 2 cgroups in none$"
	$TM send-keys g g g
	scr_wait "^rows by path \(tree\)$"
	scr_wait "^$A "
	# Colour where it helps: A's throttled row in red (SGR 31), B's not.
	$TM capture-pane -p -e >"$TMP/pane.e"
	grep -a "$A " "$TMP/pane.e" | grep -q "$(printf '\033')\[31m" || fail "A's throttled row is not in colour"
	# The window made smaller: drawn again to its size (the footer on its last line).
	$TM resize-window -x 120 -y 20
	deadline 10
	until $TM capture-pane -p >"$TMP/pane" && [ "$(sed -n 20p "$TMP/pane" | cut -c1-6)" = "q quit" ]; do
		past_deadline && fail "not drawn again at 20 lines: $(cat "$TMP/pane")"
		nap 0.2
	done
	# q: the summary after, the shell's screen back, stty as it was.
	$TM send-keys q
	scr_wait "^CGS-DONE"
	grep -q "^Summary over" "$TMP/pane" || fail "no summary after q: $(cat "$TMP/pane")"
	cmp -s "$TMP/stty.before" "$TMP/stty.after" || fail "the terminal's settings changed: $(cat "$TMP/stty.before") / $(cat "$TMP/stty.after")"
	# SIGTERM while the screen is up: the same.
	$TM send-keys "clear; NO_COLOR=1 $CGSCHED top -q -i 0.5 --cgroup $A; stty -g >$TMP/stty.after2; echo CGS-DONE2" Enter
	scr_wait "^q quit"
	$TM capture-pane -p -e >"$TMP/pane.e"
	! grep -a "$A " "$TMP/pane.e" | grep -q "$(printf '\033')\[31m" || fail "colour with NO_COLOR set"
	pkill -TERM -f "^$CGSCHED top -q -i 0.5 --cgroup $A\$" || fail "no cgsched to stop"
	scr_wait "^CGS-DONE2"
	cmp -s "$TMP/stty.before" "$TMP/stty.after2" || fail "the terminal's settings changed after SIGTERM"
	# Ctrl-C: the same.
	$TM send-keys "clear; $CGSCHED top -q -i 0.5 --cgroup $A; stty -g >$TMP/stty.after3; echo CGS-DONE3" Enter
	scr_wait "^q quit"
	$TM send-keys C-c
	scr_wait "^CGS-DONE3"
	cmp -s "$TMP/stty.before" "$TMP/stty.after3" || fail "the terminal's settings changed after Ctrl-C"
	# A crash of the drawing code, as SIGSEGV: the handler gives the terminal back, then it dies of the signal.
	$TM send-keys "clear; ulimit -c 0; $CGSCHED top -q -i 0.5 --cgroup $A; echo \$? >$TMP/segv.rc; stty -g >$TMP/stty.after4; echo CGS-DONE4" Enter
	scr_wait "^q quit"
	pkill -SEGV -f "^$CGSCHED top -q -i 0.5 --cgroup $A\$" || fail "no cgsched to crash"
	scr_wait "^CGS-DONE4"
	[ "$(cat "$TMP/segv.rc")" = 139 ] || fail "after SIGSEGV, exit status $(cat "$TMP/segv.rc"), not 139 (died of the signal)"
	cmp -s "$TMP/stty.before" "$TMP/stty.after4" || fail "the terminal's settings changed after a crash"
	echo "after q, SIGTERM, Ctrl-C and a crash: stty as before ($(cut -c1-40 "$TMP/stty.before")...)"
	$TM kill-server
}

# The tree, folded and unfolded; a cgroup's tasks in its detail; a row per
# task (T); the p99 mark's colour. P holds a task waking every 10 ms, its
# children C1 (unlimited) and C2 (a quota of 20 %) each a burner, all on
# CPU 1: P's wake-ups wait behind the burners.
test_top_screen_tree_tasks() {
	scr_need
	[ "$CG_VER" = 1 ] || { echo "cgroup v2 keeps processes out of a cgroup with children: P could have no task"; exit 77; }
	cg_create scrp && P=$CG
	cg_create c1 "$P" && C1=$CG
	cg_create c2 "$P" && C2=$CG
	cg_quota "$C2" 20000 100000
	cg_spawn "$P" taskset -c 1 "$CGWORK" wake 60 10000 && PP=$SPAWNED
	cg_spawn "$C1" "$CGWORK" burn 1 60 1 && P1=$SPAWNED
	cg_spawn "$C2" "$CGWORK" burn 1 60 1 && P2=$SPAWNED
	scr_start
	$TM send-keys "$CGSCHED top -q -i 0.5 --cgroup $P --mark-p99 1us; echo CGS-DONE" Enter
	# The tree: P, and its children under it by the path below P's, indented.
	scr_wait "^  /c2 "
	grep -q "^$P " "$TMP/pane" && grep -q "^  /c1 " "$TMP/pane" || fail "not a tree: $(grep -E '^(/| )' "$TMP/pane")"
	grep -E "^($P|  /c[12]) " "$TMP/pane"
	# P is the only root: the first row, highlighted. Left folds its children away, Right brings them back.
	$TM send-keys Left
	scr_wait "^$P \[\+2\] "
	grep -q "^  /c" "$TMP/pane" && fail "folded, the children are still there: $(cat "$TMP/pane")"
	$TM send-keys Right
	scr_wait "^  /c1 "
	# V: flat, each row by its whole path; V again: the tree.
	$TM send-keys V
	scr_wait "^$C1 "
	grep -q "^rows by path$" "$TMP/pane" || fail "flat, the grouping line says: $(sed -n 4p "$TMP/pane")"
	$TM send-keys V
	scr_wait "^  /c1 "
	# The mark: P's waits (p99 of milliseconds) over 1us, in yellow (SGR 33); C2 throttled, red.
	$TM capture-pane -p -e >"$TMP/pane.e"
	grep -a "^[^ ]*$P " "$TMP/pane.e" | grep -q "$(printf '\033')\[33m" || fail "P's row over --mark-p99 is not yellow"
	grep -a "/c2 " "$TMP/pane.e" | grep -q "$(printf '\033')\[31m" || fail "C2's throttled row is not red"
	# C2's detail (the last row, sorted by CPU%): its tasks from the interval after Enter, its burner's pid.
	$TM send-keys n
	scr_wait "sort path"
	$TM send-keys Down Down Enter
	scr_wait "^Its tasks"
	grep -q "^$C2 " "$TMP/pane" || fail "the detail is not C2's: $(cat "$TMP/pane")"
	scr_wait "^Its tasks this interval \(1\):"
	sed -n '/^Its tasks/,/^$/p' "$TMP/pane"
	awk -v p="$P2" '$1 == p && $2 == "cgwork" { f = 1 } END { exit !f }' "$TMP/pane" ||
		fail "C2's burner ($P2) is not among its tasks: $(cat "$TMP/pane")"
	# T: a row per task, each of the three workloads under its cgroup.
	$TM send-keys Escape T
	scr_wait "^rows by task \(processes\)"
	for p in "$PP" "$P1" "$P2"; do
		deadline 10
		until $TM capture-pane -p >"$TMP/pane" && awk -v p="$p" '$1 == p { f = 1 } END { exit !f }' "$TMP/pane"; do
			past_deadline && fail "task $p has no row: $(cat "$TMP/pane")"
			nap 0.2
		done
	done
	grep -E "^ *($PP|$P1|$P2) " "$TMP/pane"
	# Enter on a task row: its cgroup's detail.
	$TM send-keys Enter
	scr_wait "^Throttled \(THR%\) per interval"
	$TM send-keys q
	scr_wait "^CGS-DONE"
	$TM kill-server
}

# The screen on a pseudo-terminal of the tests' own (ptyrun; the QEMU
# guests have no tmux): a screen session's programs (the per-task figures
# of one cgroup at a time, tasks.bpf.h) load on this kernel, the screen is
# drawn in place, T (typed before it opens: the terminal keeps it) turns
# the rows into tasks with the workload's process among them, and -n ends
# it with the summary after the screen.
test_top_screen_on_pty() {
	cg_create scrpty && A=$CG
	cg_spawn "$A" "$CGWORK" burn 1 60 1 && PA=$SPAWNED
	TERM=xterm "$PTYRUN" "$(scaled 60)" 0 T $CGSCHED top -q -i 0.5 -n 6 --cgroup "$A" >"$TMP/pty.out" ||
		fail "top on a terminal failed: $(tr -c '[:print:]\n' ' ' <"$TMP/pty.out" | tail -n 5)"
	[ "$(grep -ac 'cgsched top - ' "$TMP/pty.out")" = 1 ] ||
		fail "no screen drawn (or more than one header): $(tr -c '[:print:]\n' ' ' <"$TMP/pty.out" | head -n 20)"
	grep -aq "rows by task (processes)" "$TMP/pty.out" || fail "T did not turn the rows into tasks"
	grep -aq "$PA.*cgwork" "$TMP/pty.out" || fail "the burner ($PA) has no task row: $(tr -c '[:print:]\n' ' ' <"$TMP/pty.out")"
	grep -aq "^Summary over" "$TMP/pty.out" || fail "no summary after the screen"
	grep -a "$PA.*cgwork" "$TMP/pty.out" | tr -c '[:print:]\n' ' ' | head -n 1
}

# Not a terminal, or --batch: the tables one after another, as before.
test_top_batch_lines() {
	scr_need
	scr_start
	$TM send-keys "$CGSCHED top -q -b -i 0.3 -n 2 >$TMP/b.out; echo CGS-DONE" Enter
	scr_wait "^CGS-DONE" 20
	grep -q "^cgsched top - " "$TMP/pane" && fail "--batch drew a screen"
	[ "$(grep -c '^CGROUP ' "$TMP/b.out")" = 3 ] || fail "--batch: $(grep -c '^CGROUP ' "$TMP/b.out") tables, expected 2 and the summary's"
	$TM send-keys "$CGSCHED top -q -b -i 0.3 -n 2; echo CGS-DONE2" Enter
	scr_wait "^CGS-DONE2" 20
	grep -q "^Summary over" "$TMP/pane" || fail "--batch on the terminal: no summary: $(cat "$TMP/pane")"
	$TM kill-server
}
