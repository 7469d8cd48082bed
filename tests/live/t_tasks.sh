# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Inside one cgroup: top --tasks, --threads and hist --per-task, per process
# (and thread) against the kernel's own account of each (/proc/PID/schedstat,
# which cgwork prints for its threads as it ends).

# tasks_burn CG [SECONDS]: two burners pinned to CPU 0 (so they queue
# behind each other): P1 with one thread, P2 with two, for SECONDS (default
# 2 s, scaled: the runs whose figures are compared with the kernel's); their
# own account in $TMP/p1, $TMP/p2. A run that only has to show rows takes 1 s.
tasks_burn() {
	_s=${2:-$(scaled 2)}
	cg_spawn "$1" "$CGWORK" burn 1 "$_s" 0 >"$TMP/p1"
	P1=$SPAWNED
	cg_spawn "$1" "$CGWORK" burn 2 "$_s" 0 >"$TMP/p2"
	P2=$SPAWNED
	wait_bounded "$P1" $(( ${_s%.*} + 30 )) "burner P1" && [ "$WAIT_RC" = 0 ] || fail "burner P1 failed"
	wait_bounded "$P2" $(( ${_s%.*} + 30 )) "burner P2" && [ "$WAIT_RC" = 0 ] || fail "burner P2 failed"
}

# task_row PID FILTER: the summary's row of that process (top --tasks JSON).
task_row() {
	jq -r --argjson p "$1" "select(.kind == \"summary\") | .tasks[] | select(.pid == \$p) | $2" "$TMP/cgs.out"
}

# Per process: on-CPU time within 2% of schedstat's (the same task clock),
# run-queue wait within 5% of its run delay, named by its name after exec.
test_tasks_match_schedstat() {
	cg_create tasks && A=$CG
	cgs_start top --cgroup "$A" --tasks --json -i 1h || fail "top --tasks did not start"
	tasks_burn "$A"
	cgs_stop || fail "top --tasks"
	for p in 1 2; do
		eval "pid=\$P$p"
		[ "$(task_row "$pid" .comm)" = cgwork ] || fail "P$p ($pid) is named '$(task_row "$pid" .comm)', not cgwork"
		[ "$(task_row "$pid" .path)" = "$A" ] || fail "P$p's cgroup: '$(task_row "$pid" .path)'"
		within "$(task_row "$pid" .oncpu_ns)" "$(kv oncpu_ns <"$TMP/p$p")" 2 "P$p on-CPU ns" ||
			fail "P$p's on-CPU time is off"
		within "$(task_row "$pid" .runq.sum_ns)" "$(kv rundelay_ns <"$TMP/p$p")" 5 "P$p run-queue wait ns" ||
			fail "P$p's run-queue wait is off"
	done
	# The rows of the cgroup's processes add up to its own row.
	sum=$(jq -r --arg p "$A" 'select(.kind == "summary") | [.tasks[] | select(.path == $p) | .runq.count] | add' "$TMP/cgs.out")
	[ "$sum" = "$(cgs_summary "$A" .runq.count)" ] || fail "its tasks' waits add to $sum, the cgroup's to $(cgs_summary "$A" .runq.count)"
	echo "the cgroup's $sum run-queue waits are its tasks' sum"
}

# A task's slice running at each read, credited as its cgroup's: a burner
# alone on CPU 1 switches a few times a second, and its interval figures
# held only the slices that had ended (19 % and 173 % in turn where its
# cgroup's row said 100). With one task in the cgroup the two rows hold the
# same slices credited up to the same read. They may differ by one slice
# that ended while the entries were read (tasks_read then reads them again
# and the task's runs to that switch): at most the read's own length, under
# a millisecond for a few entries here; 2 ms an interval is allowed
# (scaled: the guests' reads are slower).
test_tasks_running_slices() {
	cg_create tasksrun && A=$CG
	cgs_start top --cgroup "$A" --tasks --json -i 0.5 || fail "top --tasks did not start"
	cg_spawn "$A" "$CGWORK" burn 1 "$(scaled 4)" 1 >"$TMP/p1"
	wait_bounded "$SPAWNED" $(( $(scaled 4) + 30 )) "burner" && [ "$WAIT_RC" = 0 ] || fail "burner failed"
	cgs_stop || fail "top --tasks"
	jq -r --arg p "$A" --argjson pid "$SPAWNED" 'select(.kind == "interval") |
		"\([.cgroups[] | select(.path == $p) | .oncpu_ns] | add // 0) \([.tasks[] | select(.pid == $pid) | .oncpu_ns] | add // 0)"' \
		"$TMP/cgs.out" >"$TMP/pairs"
	awk -v slack="$(scaled 2000000)" '
		{ d = $1 - $2; if (d < 0) d = -d; printf "cgroup %.1f ms, task %.1f ms, apart %.3f ms\n", $1 / 1e6, $2 / 1e6, d / 1e6 }
		$1 > 0 { n++; if (d > slack) bad++ }
		$1 > 450e6 { full++ }
		END {
			if (full < 4) { printf "only %d intervals with the burner on CPU the whole time\n", full; exit 1 }
			if (bad) { printf "%d of %d intervals: the task and its cgroup more than %.1f ms apart\n", bad, n, slack / 1e6; exit 1 }
		}' "$TMP/pairs" || fail "the burner's interval figures are not its cgroup's"
}

# --threads: P2's two threads are two rows of the same process; the table
# and hist --per-task name the process.
test_tasks_threads_table_hist() {
	cg_create threads && A=$CG
	cgs_start top --cgroup "$A" --tasks --threads --json -i 1h || fail "top --tasks --threads did not start"
	tasks_burn "$A"
	cgs_stop || fail "top --tasks --threads"
	n=$(task_row "$P2" .tid | sort -u | wc -l)
	# The process's first thread (which made the others) and its two burners.
	[ "$n" -ge 2 ] || fail "P2 shows $n threads, expected its 2 burners"
	within "$(task_row "$P2" .oncpu_ns | awk '{ s += $1 } END { print s }')" "$(kv oncpu_ns <"$TMP/p2")" 3 "P2's threads on-CPU ns" ||
		fail "P2's threads do not add up to it"

	cgs_start top --cgroup "$A" --tasks -i 1h || fail "top --tasks (table) did not start"
	tasks_burn "$A" 1
	cgs_stop || fail "top --tasks (table)"
	sed -n '/^Summary/,$p' "$TMP/cgs.out" >"$TMP/table"
	cat "$TMP/table"
	grep -q '^ *PID COMM ' "$TMP/table" || fail "no per-task heading"
	grep -Eq "^ *$P1 cgwork " "$TMP/table" || fail "no row for P1 ($P1)"

	: >"$TMP/hist.err"
	"$CGSCHED" hist --cgroup "$A" --per-task -d "$(scaled 30)" >"$TMP/hist" 2>"$TMP/hist.err" &
	H=$!
	wait_line "$TMP/hist.err" tracing
	tasks_burn "$A" 1
	kill -INT "$H"
	wait_bounded "$H" 40 "hist --per-task" && [ "$WAIT_RC" = 0 ] || fail "hist --per-task: $(cat "$TMP/hist.err")"
	grep -q "^pid = $P1 (cgwork), cgroup = $A\$" "$TMP/hist" || fail "hist: no heading for P1: $(head -n 5 "$TMP/hist")"
	grep -q "^pid = $P2 (cgwork), cgroup = $A\$" "$TMP/hist" || fail "hist: no heading for P2"
}

# --max-tasks bounds the map; the tasks beyond it are counted, not lost silently.
test_tasks_bound_counted() {
	cg_create tbound && A=$CG
	cgs_start top --cgroup "$A" --tasks --max-tasks 2 --json -i 1h || fail "top --tasks --max-tasks 2 did not start"
	for i in 1 2 3 4 5; do
		cg_run "$A" "$CGWORK" burn 1 0.2 0 >/dev/null || fail "burner $i"
	done
	cgs_stop || fail "top"
	rows=$(jq -r 'select(.kind == "summary") | .tasks | length' "$TMP/cgs.out")
	full=$(jq -r 'select(.kind == "summary") | .drops.tasks_full' "$TMP/cgs.out")
	echo "5 processes, --max-tasks 2: $rows rows, tasks_full $full"
	[ "$rows" -le 2 ] || fail "$rows rows from a map of 2"
	[ "$full" -gt 0 ] || fail "the tasks beyond the bound were not counted"
	"$CGSCHED" top --tasks --max-tasks 0 -n 1 2>"$TMP/e" && fail "--max-tasks 0 accepted"
	[ $? = 2 ] && grep -q "max-tasks" "$TMP/e" || fail "--max-tasks 0: $(cat "$TMP/e")"
	"$CGSCHED" top --threads -n 1 2>"$TMP/e"
	[ $? = 2 ] || fail "--threads without --tasks accepted"
}
