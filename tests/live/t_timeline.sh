# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --timeline: the Perfetto trace decoded with Perfetto's own schema
# (perfetto_trace_pb2 from PyPI, in the venv `make test` makes under
# .output) by tests/live/perfetto_check.py.

PYVENV=${PYVENV:-$ROOT/.output/venv}

# tl_need: Perfetto's schema in the venv, or skip at once (the guest has no Python).
tl_need() {
	[ -x "$PYVENV/bin/python" ] || { echo "no Python venv with perfetto at $PYVENV (make test makes it): a test for the host"; exit 77; }
}

# tl_check FILE: the summary (JSON) into $TMP/tl.json; fails unless it decodes cleanly.
tl_check() {
	tl_need
	"$PYVENV/bin/python" "$ROOT/tests/live/perfetto_check.py" "$1" >"$TMP/tl.json" ||
		fail "the trace does not decode with Perfetto's schema: $(cat "$TMP/tl.json")"
	jq -c '{packets, lost, command, problems, cgroups}' "$TMP/tl.json" | cut -c1-1500
	[ "$(jq '.problems | length' "$TMP/tl.json")" = 0 ] || fail "problems in the trace: $(jq -c .problems "$TMP/tl.json")"
}

# record under a 25 % quota: every episode is in the trace, on the record's
# cgroup's track, and their durations add up to cpu.stat's throttled time.
test_timeline_record_throttle() {
	tl_need
	"$CGSCHED" record --cpu-max 25% --timeline "$TMP/r.pftrace" -o "$TMP/r.json" -- \
		"$CGWORK" burn 1 4 >/dev/null 2>"$TMP/rec.err" || fail "record failed: $(cat "$TMP/rec.err")"
	tl_check "$TMP/r.pftrace"
	cg=$(jq -r .cgroup "$TMP/r.json")
	kern=$(jq .kernel_stat.throttled_ns "$TMP/r.json")
	count=$(jq .throttle.count "$TMP/r.json")
	tns=$(jq --arg c "$cg" '.cgroups[$c].throttle_ns // 0' "$TMP/tl.json")
	tcount=$(jq --arg c "$cg" '.cgroups[$c].throttle_count // 0' "$TMP/tl.json")
	echo "episodes: trace $tcount, record's count $count; their time $tns ns, cpu.stat $kern ns"
	[ "$tcount" = "$count" ] || fail "the trace has $tcount throttle episodes, the tracer counted $count"
	within "$tns" "$kern" 2 "throttle slices vs cpu.stat throttled" || fail "throttled time off"
	# The command's slice spans its run.
	cmd_ns=$(jq '.command.ns // 0' "$TMP/tl.json")
	within "$cmd_ns" "$(jq .wall_ns "$TMP/r.json")" 1 "command slice vs record's wall time" || fail "command slice off"
	# Counters: each of the four under the cgroup's track.
	n=$(jq --arg c "$cg" '[.tracks[] | select(.counter and .parent_path == $c)] | length' "$TMP/tl.json")
	[ "$n" = 4 ] || fail "$n counter tracks under $cg, expected 4 (CPU %, run-queue p99, throttled %, quota used %)"
}

# top, nested cgroups, two busy cgroups sharing CPU 0: the tracks nest as
# the cgroups do, the long waits name the other cgroup, and a run cut by
# SIGINT still decodes.
test_timeline_top_nesting_waits() {
	tl_need
	cg_create tl && P=$CG
	cg_enable_children "$P"
	cg_create kid "$P" && K=$CG
	cg_create other && O=$CG
	cgs_start top -i 1 --timeline "$TMP/t.pftrace" --long-wait 500us || fail "top refused"
	cg_spawn "$K" "$CGWORK" burn 1 30 0 >/dev/null
	cg_spawn "$O" "$CGWORK" burn 1 30 0 >/dev/null
	sleep 3
	cgs_stop INT || fail "top did not stop cleanly on SIGINT"
	tl_check "$TMP/t.pftrace"
	# kid's track under tl's, tl's under the hierarchy's root.
	kp=$(jq -r --arg c "$K" '.tracks[] | select(.path == $c and (.counter | not)) | .parent_path' "$TMP/tl.json" | head -n 1)
	pp=$(jq -r --arg c "$P" '.tracks[] | select(.path == $c and (.counter | not)) | .parent_path' "$TMP/tl.json" | head -n 1)
	echo "nesting: $K under $kp; $P under $pp"
	[ "$kp" = "$P" ] && [ "$pp" = / ] || fail "tracks do not nest as the cgroups do"
	w=$(jq --arg c "$K" '.cgroups[$c].waits // 0' "$TMP/tl.json")
	b=$(jq -r --arg c "$K" '.cgroups[$c].behind | to_entries | max_by(.value) | .key' "$TMP/tl.json")
	echo "$K: $w long waits, mostly behind $b"
	[ "$w" -gt 10 ] || fail "only $w long waits of a burner sharing its CPU"
	[ "$b" = "$O" ] || fail "its waits should be behind $O, the trace says $b"
}

# Bad input: one line, exit 2, no file left.
test_timeline_bad_input() {
	"$CGSCHED" top -n 1 --timeline /nonexistent/dir/t.pftrace >/dev/null 2>"$TMP/e"
	rc=$?
	echo "--timeline /nonexistent/dir/t.pftrace -> $rc: $(cat "$TMP/e")"
	[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && grep -q "/nonexistent/dir" "$TMP/e" || fail "a bad path should be one line, exit 2"
	"$CGSCHED" top -n 1 --long-wait 5ms >/dev/null 2>"$TMP/e"
	rc=$?
	[ "$rc" = 2 ] && grep -q -- "--timeline" "$TMP/e" || fail "--long-wait without --timeline: exit $rc: $(cat "$TMP/e")"
	# Found bad after the file was made (the cgroup's name is taken): the file goes too.
	cg_create dup && D=$CG
	"$CGSCHED" record --timeline "$TMP/x.pftrace" --name "${D#/}" -- true >/dev/null 2>"$TMP/e"
	rc=$?
	echo "record --name of an existing cgroup -> $rc: $(cat "$TMP/e")"
	[ "$rc" = 2 ] && [ ! -e "$TMP/x.pftrace" ] || fail "bad input left a trace file behind (exit $rc)"
}

# A full ring buffer: the waits lost are counted (wait_lost), in the trace
# as its "events lost" counter, and said on stderr. The ring is shrunk to
# one page for this (CGSCHED_TEST_WAITS_RING), a pipe ping-pong on CPU 0
# waits tens of thousands of times a second, and every wait of 1 us or more
# is sent.
test_timeline_loss_shown() {
	tl_need
	cg_create tl-loss && L=$CG
	CGSCHED_TEST_WAITS_RING=4096 cgs_start top -i 1 --timeline "$TMP/l.pftrace" --long-wait 1us ||
		fail "top refused"
	"$CGWORK" pingpong 100000 0 "$CG_ROOT$L/cgroup.procs" "$CG_ROOT$L/cgroup.procs" 0 >/dev/null &
	PP=$!
	# The reader stopped for a second: the page fills, whatever the machine's speed.
	nap 0.3
	kill -STOP "$CGS_PID"
	sleep 1
	kill -CONT "$CGS_PID"
	wait_bounded $PP 30 "the ping-pong"
	cgs_stop TERM || fail "top did not stop cleanly on SIGTERM"
	tl_check "$TMP/l.pftrace"
	lost=$(jq '.lost' "$TMP/tl.json")
	echo "trace's events-lost counter: $lost; stderr: $(grep lost "$TMP/cgs.err")"
	awk -v l="$lost" 'BEGIN { exit !(l > 0) }' || fail "no loss in the trace with a one-page ring buffer"
	grep -q "events lost" "$TMP/cgs.err" || fail "no loss said on stderr"
	grep -q "wait_lost" "$TMP/cgs.out" || fail "the summary's drops do not name wait_lost"
}

# top --json takes each interval's episodes for its output: the trace still
# has every one (a single burner on CPU 0 under 25 %: one episode a period).
# The kernel's nr_throttled counts the period timer's expiries that found the
# group throttled, not episodes: an episode that outlives a period (its debt
# beyond the refill, or the timer late and counting its overrun) is two or
# more. One such in a clean-clone run of 16bcaa3: 30 episodes, 31 periods,
# the throttled time 0.03 % apart (a missed episode would be ~75 ms, 3.5 %).
# So the periods lie between the episodes and the sum of each one's
# expiries at most, ceil(duration / 100 ms).
test_timeline_top_json_episodes() {
	tl_need
	cg_create tl-json && J=$CG
	cg_quota "$J" 25000 100000
	cgs_start top --json -i 1 --timeline "$TMP/j.pftrace" || fail "top refused"
	cg_run "$J" "$CGWORK" burn 1 3 0 >/dev/null || fail "burn failed"
	cgs_stop INT || fail "top did not stop cleanly"
	tl_check "$TMP/j.pftrace"
	kern=$(cg_throttled_ns "$J")
	periods=$(awk '$1 == "nr_throttled" { print $2 }' "$CG_ROOT$J/cpu.stat")
	tns=$(jq --arg c "$J" '.cgroups[$c].throttle_ns // 0' "$TMP/tl.json")
	tcount=$(jq --arg c "$J" '.cgroups[$c].throttle_count // 0' "$TMP/tl.json")
	set -- $(cgs_episodes "$J" 100000000)
	most=$2
	shift 2
	echo "episodes in the trace: $tcount, throttled periods $periods, at most $most periods by the episodes' lengths (longest, ms: $*); $tns ns vs cpu.stat $kern ns"
	[ "$tcount" -le "$periods" ] && [ "$periods" -le "$most" ] ||
		fail "the trace has $tcount episodes, cpu.stat $periods throttled periods (at most $most by their lengths)"
	within "$tns" "$kern" 2 "throttle slices vs cpu.stat (top --json)" || fail "throttled time off"
	# Its throttled periods (with the grid, from the cgroup iterator): a
	# burner under 25 % is throttled in every period it runs, cpu.stat counts
	# each at its end, the trace at the episode's start: the same, or one
	# apart at the run's first or last.
	tp=$(jq --arg c "$J" '.cgroups[$c].periods // 0' "$TMP/tl.json")
	echo "throttled periods in the trace: $tp, cpu.stat $periods"
	if "$CGSCHED" stat --json --limited --method iter >/dev/null 2>&1; then
		[ "$tp" -ge $((periods - 1)) ] && [ "$tp" -le $((periods + 1)) ] ||
			fail "the trace has $tp throttled periods, cpu.stat $periods"
	fi
}

# Throttled periods in the trace: a pulse of 80 ms every tenth period of
# 100 ms over a 40 ms quota. The trace's periods are drawn from the same
# episodes on the same grid (the period timer's) as record's figures, so
# their count and longest run are record's exactly (one thread: its
# episodes arrive in order); each slice is one whole period long, and the
# runs hold every throttled period once.
test_timeline_throttled_periods() {
	tl_need
	"$CGSCHED" stat --json --limited --method iter >/dev/null 2>"$TMP/e" ||
		{ echo "no cgroup iterator here (the period grid comes with it): $(cat "$TMP/e")"; exit 77; }
	"$CGSCHED" record -q --cpu-max 40ms/100ms --timeline "$TMP/p.pftrace" -o "$TMP/p.json" -- \
		"$CGWORK" pulse "$(scaled 3)" 1 100000 10000 10 80000 >/dev/null 2>"$TMP/p.err" ||
		fail "record failed: $(cat "$TMP/p.err")"
	tl_check "$TMP/p.pftrace"
	cg=$(jq -r .cgroup "$TMP/p.json")
	set -- $(jq -r '.throttle.periods | "\(.throttled) \(.longest_run)"' "$TMP/p.json")
	set -- "$@" $(jq -r --arg c "$cg" '.cgroups[$c] | "\(.periods) \(.period_min_ns) \(.period_max_ns) \(.period_run_max) \(.runs) \(.run_periods) \(.run_longest)"' "$TMP/tl.json")
	echo "record: $1 throttled periods, $2 in a row at most; trace: $3 periods ($4-$5 ns long, up to $6 in a row), $7 runs holding $8 periods, the longest $9"
	[ "$1" -ge 2 ] || fail "only $1 throttled periods: each pulse outruns the quota"
	[ "$3" = "$1" ] || fail "the trace has $3 throttled periods, record $1"
	[ "$4" = 100000000 ] && [ "$5" = 100000000 ] || fail "period slices of $4-$5 ns, the period is 100 ms"
	[ "$6" = "$2" ] && [ "$9" = "$2" ] || fail "the trace's longest run ($6, runs $9) is not record's ($2)"
	[ "$8" = "$3" ] || fail "the runs hold $8 periods, the trace has $3"
}

# record traces its own cgroup only; a long wait still names the cgroup of
# the task that ran meanwhile (a neighbour on the same CPU).
test_timeline_record_names_neighbour() {
	tl_need
	cg_create tl-nb && N=$CG
	cg_spawn "$N" "$CGWORK" burn 1 30 0 >/dev/null
	"$CGSCHED" record --timeline "$TMP/n.pftrace" --long-wait 500us -o "$TMP/n.json" -- \
		"$CGWORK" burn 1 2 0 >/dev/null 2>"$TMP/rec.err" || fail "record failed: $(cat "$TMP/rec.err")"
	tl_check "$TMP/n.pftrace"
	cg=$(jq -r .cgroup "$TMP/n.json")
	b=$(jq -r --arg c "$cg" '.cgroups[$c].behind | to_entries | max_by(.value) | .key' "$TMP/tl.json")
	echo "record's waits mostly behind: $b"
	[ "$b" = "$N" ] || fail "the waits should be behind $N, the trace says $b"
}
