# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# cgsched record -- CMD and cgsched check: the seed experiments, CI gates,
# exit statuses, signals, bad input. Every record cgroup must be gone after.

MATMUL=${MATMUL:-$ROOT/.output/workloads/matmul}

no_record_cgroups_left() {
	left=$(ls "$CG_ROOT" | grep -E '^cgsched-record-|^cgs-test-'$CGS_RUN'-rec-sig$' || true)
	[ -z "$left" ] || fail "cgroups left behind: $left"
}

# Seed (cgroup v1, 25% quota: 2 s of work took 8 s): a single-threaded loop
# with --cpu-max 25% takes about 4x as long; the report says about 25% CPU
# and about 75% throttled.
#
# How long is checked against the quota's law, not against the loop's
# unconstrained run. With quota q = 25 ms a period P = 100 ms, a group
# always runnable that ran C took W = 4C + d of wall: it spends the full
# quota there at the start, the m refills after, and r <= q of the last, so
# C = (m + 1)q + r and W = phi + mP + r, with the first refill phi <= P after
# the start: d = phi - P - 3r, from -(P + 3q) to 0. Runtime is handed to
# each CPU in slices (sched_cfs_bandwidth_slice_us) that outlive their
# period since v5.4 (the slice-expiry fix): up to a slice a CPU more, 4 x
# that of wall under. And 25 ms either way for the window's own edges
# (record's fork and the command's exec, its exit, which record notices on
# a pidfd as it happens: noticed at the next of its 20 ms polls before, it
# put a run +25.5 ms over in CI, docs/testing.md, "The quota's law").
# Measured: -84 to +3 ms
# in 30 runs in the 6.1 guest, -101 ms on the host.
#
# Against the unconstrained run, the loop's CPU time must be the same in
# both, and once in a clean-clone run it was not: the group ran 1.24 s
# (cpu.stat said so too) for a loop that stops at 1.0 s of its own CPU time
# (1.00-1.02 s in every other run, every kernel), and took x5.16 (limit
# x4.8) while the law held (4.93 s of wall for 4.96). The x-ratio is
# printed, and cgwork's own count, to tell the next such run apart.
test_record_quota_25pct() {
	w0=$("$CGWORK" spin 1 | kv wall_ns)
	"$CGSCHED" record -q --cpu-max 25% -o "$TMP/r.json" -- "$CGWORK" spin 1 >"$TMP/out" 2>"$TMP/err" ||
		fail "record failed: $(cat "$TMP/err")"
	cat "$TMP/err"
	echo "cgwork's own count: $(cat "$TMP/out")"
	set -- $(jq -r '"\(.cpu_pct) \(.throttle.pct) \(.wall_ns) \(.oncpu_ns)"' "$TMP/r.json")
	slice=$(cat /proc/sys/kernel/sched_cfs_bandwidth_slice_us 2>/dev/null || echo 5000)
	awk -v c="$1" -v t="$2" -v w1="$3" -v on="$4" -v w0="$w0" -v n="$(nproc)" -v s="$slice" 'BEGIN {
		P = 100e6; q = 25e6; edge = 25e6
		d = w1 - 4 * on
		lo = -(P + 3 * q + 4 * n * s * 1000) - edge
		printf "x%.2f as long as unconstrained (%.2f s); %.1f%% CPU, %.1f%% throttled; wall %.3f s for %.3f s on CPU: %+.1f ms from four times (limits %+.0f to %+.0f)\n",
			w1 / w0, w0 / 1e9, c, t, w1 / 1e9, on / 1e9, d / 1e6, lo / 1e6, edge / 1e6
		exit !(d >= lo && d <= edge && c > 21 && c < 29 && t > 65 && t < 85)
	}' || fail "expected 25% CPU, 75% throttled and four times the CPU time in wall time"
	[ "$(jq -r '.limits.quota_us' "$TMP/r.json")" = 25000 ] || fail "limits not in the report"
	[ "$(jq -r '.exit.status' "$TMP/r.json")" = 0 ] || fail "exit status not in the report"
	grep -q "throttle episodes" "$TMP/err" || fail "no throttle histogram in the summary"
	jq -e '(.episodes | length) == .throttle.count and ([.episodes[].duration_ns] | add) == .throttle.ns
		and all(.episodes[]; .start_ns >= 0 and .start_ns + .duration_ns <= $w)' --argjson w "$3" "$TMP/r.json" >/dev/null ||
		fail "the episode list does not match the throttle figures"
	no_record_cgroups_left
}

# Seed (cgroup v2, cpu.max 40%: 41% CPU): a multithreaded matrix multiply
# with --cpu-max 400000/1000000 gets about 40% of one CPU per wall second.
# It runs for whole seconds of wall time (whole periods); the kernel grants
# about one extra period's quota around start and end, so 6 s show 40-46%.
test_record_matmul_40pct() {
	out=$("$CGSCHED" record -q --cpu-max 400000/1000000 -o "$TMP/m.json" -- "$MATMUL" 2 6 wall 2>"$TMP/err") ||
		fail "record failed: $(cat "$TMP/err")"
	c=$(jq -r .cpu_pct "$TMP/m.json")
	echo "matmul: $out; cgsched: $c% of one CPU"
	awk -v c="$c" 'BEGIN { exit !(c > 35 && c < 47) }' || fail "expected about 40%, got $c%"
	# Both in the kernel's task clock (see test_oncpu_matches_schedstat).
	within "$(jq -r .oncpu_ns "$TMP/m.json")" "$(echo "$out" | kv cpu_ns)" 2 "on-CPU ns vs the process's own CPU time" ||
		fail "on-CPU time off"
	no_record_cgroups_left
}

# check: a tight throttle limit fails (exit 1, a line naming the rule) on a
# throttled run and passes on an unlimited one; inline with record --check;
# a baseline comparison.
test_check_gates() {
	"$CGSCHED" record -q --cpu-max 20% -o "$TMP/thr.json" -- "$CGWORK" spin 0.4 >/dev/null 2>&1 || fail "record failed"
	"$CGSCHED" record -q -o "$TMP/free.json" -- "$CGWORK" spin 0.4 >/dev/null 2>&1 || fail "record failed"
	"$CGSCHED" check "$TMP/thr.json" --max-throttled-pct 5 >"$TMP/o"; rc=$?
	echo "throttled run -> exit $rc: $(cat "$TMP/o")"
	[ $rc = 1 ] && grep -q '^FAIL max-throttled-pct: limit 5.00%, measured ' "$TMP/o" || fail "should fail with exit 1"
	"$CGSCHED" check "$TMP/free.json" --max-throttled-pct 5 --min-cpu-pct 80 >"$TMP/o"; rc=$?
	echo "unlimited run -> exit $rc: $(cat "$TMP/o")"
	[ $rc = 0 ] || fail "should pass"
	# Three rules broken needs a run that surely waited in the run queue: a
	# lone spinner waits only when something else preempts it, and in one
	# run of CI (one in 12 here) nothing did: no waits, a p99 of 0 that
	# holds under any limit. Two threads on one CPU wait for each other.
	"$CGSCHED" record -q --cpu-max 20% -o "$TMP/two.json" -- "$CGWORK" burn 2 0.4 1 >/dev/null 2>&1 || fail "record failed"
	"$CGSCHED" check "$TMP/two.json" --max-throttled-pct 5 --min-cpu-pct 80 --max-runq-p99 1ns >"$TMP/o"; rc=$?
	n=$(grep -c '^FAIL' "$TMP/o")
	echo "three rules broken -> exit $rc, $n lines: run-queue waits $(jq -c .runq "$TMP/two.json")"
	cat "$TMP/o"
	[ $rc = 1 ] && [ "$n" = 3 ] || fail "expected exit 1 and three FAIL lines"
	"$CGSCHED" check "$TMP/free.json" --baseline "$TMP/free.json" --max-regression 10 >/dev/null || fail "a run is within 10% of itself"
	"$CGSCHED" check "$TMP/thr.json" --baseline "$TMP/free.json" --max-regression 10 >"$TMP/o"; rc=$?
	echo "throttled vs unlimited baseline -> exit $rc: $(head -n 1 "$TMP/o")"
	[ $rc = 1 ] && grep -q 'max-regression wall_ns' "$TMP/o" || fail "the throttled run regressed in wall time"
	"$CGSCHED" record -q --cpu-max 20% --check --max-throttled-pct 5 -- "$CGWORK" spin 0.3 >/dev/null 2>"$TMP/e"; rc=$?
	echo "record --check -> exit $rc"
	[ $rc = 1 ] && grep -q '^FAIL max-throttled-pct' "$TMP/e" || fail "record --check should exit 1"
	no_record_cgroups_left
}

# CMD's exit status, 128+N for a signal; nothing left behind.
test_record_exit_status() {
	"$CGSCHED" record -q -- sh -c 'exit 3' 2>/dev/null; rc=$?
	[ $rc = 3 ] || fail "exit 3 gave $rc"
	"$CGSCHED" record -q -- sh -c 'kill -TERM $$' 2>/dev/null; rc=$?
	[ $rc = 143 ] || fail "SIGTERM gave $rc, expected 143"
	"$CGSCHED" record -q -o "$TMP/s.json" -- sh -c 'kill -KILL $$' 2>/dev/null; rc=$?
	[ $rc = 137 ] && [ "$(jq .exit.signal "$TMP/s.json")" = 9 ] || fail "SIGKILL gave $rc"
	echo "exit 3 -> 3, SIGTERM -> 143, SIGKILL -> 137"
	no_record_cgroups_left
}

# A signal to cgsched reaches CMD; cgsched reports and exits with CMD's status.
test_record_signal_reaches_cmd() {
	"$CGSCHED" record -q --name "cgs-test-$CGS_RUN-rec-sig" -o "$TMP/sig.json" -- sleep 30 2>"$TMP/err" &
	CGS_BG="$CGS_BG $!" # killed on exit if the test fails
	pid=$!
	for i in $(seq 1 50); do
		[ -n "$(cat "$CG_ROOT/cgs-test-$CGS_RUN-rec-sig/cgroup.procs" 2>/dev/null)" ] && break
		nap 0.1
	done
	kill -INT $pid
	wait_bounded $pid 20 "record after SIGINT"; rc=$WAIT_RC
	echo "SIGINT to cgsched -> exit $rc; report exit: $(jq -c .exit "$TMP/sig.json")"
	[ $rc = 130 ] || fail "expected 130 (sleep killed by SIGINT)"
	[ "$(jq .exit.signal "$TMP/sig.json")" = 2 ] || fail "the report should say signal 2"
	no_record_cgroups_left
}

# --attach: an existing cgroup, for a duration or until a PID exits, also
# when it stays a zombie (its parent never reaps it: kill(pid, 0) would
# still succeed).
test_record_attach() {
	cg_create rec-attach && A=$CG
	# Runs until killed: the slow guest took longer than a fixed amount of
	# work. Its parent becomes a sleep that never waits for it.
	cg_spawn "$A" sh -c '"$0" spin 3600 >/dev/null & echo $! >"$1"; exec sleep 3600' "$CGWORK" "$TMP/bp"
	wait_line "$TMP/bp" "[0-9]"
	bp=$(cat "$TMP/bp")
	"$CGSCHED" record -q --attach "$A" -d 0.5 -o "$TMP/a.json" 2>"$TMP/e" || fail "attach -d failed: $(cat "$TMP/e")"
	echo "attached for 0.5 s: $(jq -r .cpu_pct "$TMP/a.json")% CPU, attached=$(jq .attached "$TMP/a.json")"
	[ "$(jq .attached "$TMP/a.json")" = true ] || fail "the report should say attached"
	"$CGSCHED" record -q --attach "$A" --pid $bp -o "$TMP/p.json" 2>"$TMP/e" &
	CGS_BG="$CGS_BG $!" # killed on exit if the test fails
	rp=$!
	sleep 1
	proc_gone $rp && fail "--pid returned while $bp still runs: $(cat "$TMP/e")"
	kill $bp
	start=$(date +%s)
	for i in $(seq 1 100); do proc_gone $rp && break; nap 0.1; done
	proc_gone $rp || fail "--pid still recording 10 s after $bp exited"
	wait_bounded $rp 20 "record --attach --pid"
	[ "$WAIT_RC" = 0 ] || fail "attach --pid failed: $(cat "$TMP/e")"
	[ -d "$CG_ROOT$A" ] || fail "--attach must leave the cgroup in place"
	echo "--pid returned $(( $(date +%s) - start )) s after $bp exited; its state then: $(awk '{ print $3 }' /proc/$bp/stat 2>/dev/null)"
	[ "$(awk '{ print $3 }' /proc/$bp/stat 2>/dev/null)" = Z ] || fail "$bp was reaped: the test meant a zombie"
}

# attach_windows REL N LABEL: N windows of WIN s in a row; each window's CPU
# share against the kernel's count of the same window (record reads it right
# before and right after its first and last read of the maps: kernel_stat.
# oncpu_ns is the middle of what those reads allow, oncpu_spread_ns their
# width). The bound, 5 points of a CPU, is what a user comparing with
# cpuacct or top would call the same figure. What parts them: the kernel
# adds a running task's time to its count at a tick or a switch
# (update_curr), so at each edge its figure lags by up to a tick, 4 ms at
# HZ=250: 2 x 4 ms of 300 ms is 2.7 points at most. Measured: 0.06 points on
# the host (schedstat). The guest's ticks come late under emulation (one
# host thread runs both vCPUs in turn): an edge lagged 17.5 ms there (5.46
# points of a 0.32 s window, cpu.stat, CI at ad926a5), so its windows (WIN)
# are 0.9 s, where that is 1.9 points. And there the vCPU doing the reads
# can stop for the other's turn between cgsched's read and the kernel's: a
# window's kernel figure came out 138 ms short (15 points, CI at 1c6576b).
# That is what the spread measures, so half of it adds to the bound: in 25
# windows beside a second guest, every difference was within half the
# spread (up to 5.6 points) but one, by 0.06 points (docs/testing.md, "5
# points plus half the spread").
# 25 windows a case here, 5 in the guest (each start-up takes seconds there).
attach_windows() {
	_worst=0 _lo=1000 _hi=0 _hs=0
	for _i in $(seq 1 "$2"); do
		"$CGSCHED" record -q -v --attach "$1" -d "$WIN" -o "$TMP/w.json" 2>"$TMP/e" || fail "$3 window $_i: $(cat "$TMP/e")"
		# Checked first: with none, the arithmetic below fails in jq and leaves no fields to compare.
		jq -e '.kernel_stat.oncpu_ns != null' "$TMP/w.json" >/dev/null || fail "$3 window $_i: no kernel count of the window"
		_line=$(jq -r '[.cpu_pct, 100 * .kernel_stat.oncpu_ns / .wall_ns, .kernel_stat.oncpu_source,
			100 * .kernel_stat.oncpu_spread_ns / 2 / .wall_ns] | @tsv' "$TMP/w.json")
		set -- "$1" "$2" "$3" $_line
		_d=$(awk -v a="$4" -v b="$5" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.2f", d }')
		_lim=$(awk -v h="$7" 'BEGIN { printf "%.2f", 5 + h }')
		awk -v d="$_d" -v l="$_lim" 'BEGIN { exit !(d > l) }' && fail "$3 window $_i: cgsched $4 % vs the kernel's ($6) $5 %: $_d points apart (limit $_lim: 5 + half the kernel's spread); $(grep -E 'told|slice|nudge|did not trace' "$TMP/e"); $(jq -c '{wall_ns, oncpu_ns, switches, drops: .drops.total}' "$TMP/w.json")"
		_worst=$(awk -v a="$_worst" -v b="$_d" 'BEGIN { print (b > a ? b : a) }')
		_hs=$(awk -v a="$_hs" -v b="$7" 'BEGIN { printf "%.2f", (b > a ? b : a) }')
		_lo=$(awk -v a="$_lo" -v b="$4" 'BEGIN { print (b < a ? b : a) }')
		_hi=$(awk -v a="$_hi" -v b="$4" 'BEGIN { print (b > a ? b : a) }')
	done
	echo "$3: $2 windows of $WIN s: cgsched $_lo-$_hi % of a CPU; at most $_worst points from the kernel's ($6), whose half spread was at most $_hs"
}

# A window attached to a running burner counts it from the window's first
# moment, whatever the scheduler does (seed_cpu in sched.bpf.c): on a CPU of
# its own it never switches, on a shared one it switches every few ms.
test_record_attach_windows() {
	WIN=0.3 n=25
	[ "$CGS_TIME_SCALE" -gt 1 ] && WIN=0.9 n=5
	cg_create rec-win && A=$CG
	cg_create rec-win-other && B=$CG
	cg_spawn "$A" "$CGWORK" spin 3600
	CGS_BG="$CGS_BG $SPAWNED"
	taskset -pc 1 $SPAWNED >/dev/null || fail "cannot pin the burner"
	attach_windows "$A" "$n" "own CPU"
	cg_spawn "$B" "$CGWORK" spin 3600
	CGS_BG="$CGS_BG $SPAWNED"
	taskset -pc 1 $SPAWNED >/dev/null || fail "cannot pin the second burner"
	attach_windows "$A" "$n" "shared CPU"
}

# Bad input: one line, exit 2, nothing made or left behind.
test_record_bad_input() {
	cg_create rec-exists && E=$CG
	echo '{"schema":"cgsched/record","version":99}' >"$TMP/v99.json"
	echo '{"schema":"something/else","version":1}' >"$TMP/other.json"
	echo 'not json' >"$TMP/garbage.json"
	bad=0
	while IFS= read -r args; do
		eval "set -- $args"
		"$CGSCHED" "$@" >"$TMP/o" 2>"$TMP/e"
		rc=$?
		echo "cgsched $args -> exit $rc: $(cat "$TMP/e")"
		[ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] || bad=$((bad + 1))
	done <<ARGS
record
record --cpu-max 25%
record --cpu-max 0.5% -- true
record --cpu-max 10000/5000000 -- true
record --cpu-max lots -- true
record --cpu-weight 0 -- true
record --cpu-weight 10001 -- true
record -- /no/such/command
record -- cgs-no-such-command-anywhere
record --name "$(basename "$E")" -- true
record --name ../x -- true
record --check -- true
record --max-foo 3 -- true
record --attach /cgs-no-such-group -d 1
record --attach "$E" -- true
record -o /nonexistent-dir/r.json -- true
check
check $TMP/none.json --max-throttled-pct 5
check $TMP/v99.json --max-throttled-pct 5
check $TMP/other.json --max-throttled-pct 5
check $TMP/garbage.json --max-throttled-pct 5
check $TMP/v99.json
check $TMP/v99.json --max-throttled-pct 150
check $TMP/v99.json --max-runq-p99 soon
check $TMP/v99.json --baseline $TMP/v99.json
check $TMP/v99.json --max-foo 1
ARGS
	[ $bad = 0 ] || fail "$bad invocations did not give one line and exit 2"
	[ -d "$CG_ROOT$E" ] || fail "a name clash must not touch the existing cgroup"
	no_record_cgroups_left
}

# -o with a name that fits, but whose temporary name (12 bytes longer,
# lib/atomic_file.h) does not: refused before the command runs, in one
# line, exit 2; the command would have made a marker file.
test_record_out_name_too_long() {
	d=$TMP/rec-longname
	mkdir -p "$d"
	n=$(printf '%0245d' 0)
	: >"$d/$n" || fail "a 245-byte name cannot be made here: the test shows nothing"
	rm -f "$d/$n"
	"$CGSCHED" record -q -o "$d/$n" -- touch "$d/ran" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	echo "record -o (245 bytes) -> exit $rc: $(cut -c1-60 "$TMP/e")...$(sed 's/.*0\{245\}//' "$TMP/e")"
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] || fail "exit $rc, $(wc -l <"$TMP/e") lines, not one line and exit 2"
	grep -q "File name too long" "$TMP/e" || fail "the line does not say the name is too long: $(cat "$TMP/e")"
	[ ! -e "$d/ran" ] || fail "the command ran before the name was refused"
	[ -z "$(ls -A "$d")" ] || fail "left in $d: $(ls -A "$d")"
	rm -rf "$d"
	no_record_cgroups_left
}

# The live status line on a terminal (script(1) gives a pty), off without one.
test_record_progress_line() {
	if ! command -v script >/dev/null || ! script -qec true /dev/null >/dev/null 2>&1; then
		echo "no script(1) with -e here"
		exit 77
	fi
	script -qec "$CGSCHED record --cpu-max 50% -- $CGWORK spin 0.8" /dev/null >"$TMP/tty" 2>&1
	tr '\r' '\n' <"$TMP/tty" | grep -E '^cgsched: [0-9.]+(ms|s)  CPU [0-9.]+%  throttled' | tail -n 2
	tr '\r' '\n' <"$TMP/tty" | grep -qE '^cgsched: [0-9.]+(ms|s)  CPU [0-9.]+%  throttled' || fail "no status line on a terminal"
	"$CGSCHED" record --cpu-max 50% -- "$CGWORK" spin 0.8 >/dev/null 2>"$TMP/notty"
	! grep -q 'CPU [0-9.]*%  throttled' "$TMP/notty" || fail "a status line without a terminal"
}

# A record killed with SIGKILL cannot remove its cgroup: CMD runs on in it.
# The next record names it and leaves it (its command still runs), removes
# it once it is empty; --cleanup ends what runs in it and removes it.
test_record_sigkill_leaves_cgroup() {
	rec_orphan() { # start a record of sleep, kill it with SIGKILL: O is its cgroup, SP the sleep
		"$CGSCHED" record -q -- sleep 60 >/dev/null 2>&1 &
		RP=$!
		O=/cgsched-record-$RP
		for i in $(seq 1 100); do
			SP=$(cat "$CG_ROOT$O/cgroup.procs" 2>/dev/null)
			[ -n "$SP" ] && break
			nap 0.1
		done
		[ -n "$SP" ] || fail "record's command never ran in $O"
		kill -KILL "$RP"
		wait "$RP" 2>/dev/null
	}
	# Whatever happens, this test's orphans go (the runner knows cgs-test-* only).
	trap 'kill -9 $CGS_PID $CGS_BG $SP 2>/dev/null; nap 0.2; rmdir "$CG_ROOT$O" 2>/dev/null; cg_cleanup' EXIT
	rec_orphan
	[ -d "$CG_ROOT$O" ] && [ "$(cat "$CG_ROOT$O/cgroup.procs")" = "$SP" ] || fail "expected $O with the sleep in it"
	"$CGSCHED" record -q -- true 2>"$TMP/r" || fail "record failed: $(cat "$TMP/r")"
	grep "$O" "$TMP/r"
	grep -q "$O: left by a record that was killed (pid $RP): 1 process .*--cleanup" "$TMP/r" || fail "the orphan is not named"
	[ -d "$CG_ROOT$O" ] && ! proc_gone "$SP" || fail "removed while its command still ran"
	"$CGSCHED" record --cleanup 2>"$TMP/r" || fail "record --cleanup failed: $(cat "$TMP/r")"
	cat "$TMP/r"
	[ ! -d "$CG_ROOT$O" ] || fail "--cleanup left $O"
	nap 0.2
	proc_gone "$SP" || fail "--cleanup left its command running"
	# Once its command has ended, the next record removes it by itself.
	rec_orphan
	kill -9 "$SP"
	for i in $(seq 1 50); do
		[ -z "$(cat "$CG_ROOT$O/cgroup.procs")" ] && break
		nap 0.1
	done
	"$CGSCHED" record -q -- true 2>"$TMP/r" || fail "record failed: $(cat "$TMP/r")"
	grep "$O" "$TMP/r"
	grep -q "$O: left empty by a record that was killed (pid $RP): removed" "$TMP/r" && [ ! -d "$CG_ROOT$O" ] ||
		fail "the empty orphan was not removed"
	no_record_cgroups_left
}

# What CMD left running in its cgroup is ended when record ends, by a means
# that never signals a reused pid: cgroup.kill where the kernel has it (v2,
# 5.14), else a pidfd per process, checked to be in the cgroup while it
# lives (-v names the means). Nothing is left behind.
test_record_ends_leftovers() {
	"$CGSCHED" record -v -o "$TMP/l.json" -- sh -c "sleep $(scaled 60) & echo \$! >'$TMP/bg'" >/dev/null 2>"$TMP/e" ||
		fail "record failed: $(tail -n 3 "$TMP/e")"
	bg=$(cat "$TMP/bg")
	how=$(grep -o 'its processes ended by [a-z.]*' "$TMP/e")
	echo "left behind: sleep $bg; $how"
	[ -n "$how" ] || fail "-v does not say how the leftovers were ended: $(grep -v '^  ' "$TMP/e" | tail -n 5)"
	# Which the kernel has: a cgroup of the test's own has cgroup.kill or not (the root never has it).
	cg_create rec-probe || fail "cannot make a cgroup"
	want=pidfd
	[ -e "$CG_ROOT$CG/cgroup.kill" ] && want=cgroup.kill
	[ "$how" = "its processes ended by $want" ] || fail "ended by ${how##* }, expected $want on cgroup v$CG_VER"
	for i in $(seq 1 50); do
		kill -0 "$bg" 2>/dev/null || break
		nap 0.1
	done
	! kill -0 "$bg" 2>/dev/null || fail "the background sleep $bg survived record"
	no_record_cgroups_left
}

# The report's run-queue maximum is the whole run's, though record --demand
# reads the maps every tenth of a period (session/demand_rec.c):
# those reads must not close the maxima's epoch, or the report would keep
# only the last read's. A burner shares CPU 1 with a pulse for its first
# 0.5 s (waits of milliseconds), then the pulse runs alone for 1.5 s more
# (waits of microseconds): the maximum is milliseconds, and at least the
# floor of the histogram's highest slot (2^i us).
test_record_max_whole_run() {
	"$CGSCHED" record -q --demand -o "$TMP/max.json" -- sh -c "\"$CGWORK\" burn 1 0.5 1 >/dev/null & \"$CGWORK\" pulse $(scaled 2) 1 10000 3000 >/dev/null; wait" \
		2>"$TMP/max.err" || fail "record failed: $(cat "$TMP/max.err")"
	set -- $(jq -r '.runq | "\(.max_ns) \(.hist | length)"' "$TMP/max.json")
	echo "run-queue max $1 ns; the histogram's highest slot $(($2 - 1)) (from $((1 << ($2 - 1))) us)"
	[ "$1" -ge 1000000 ] || fail "a maximum of $1 ns: the burner's first half second held the pulse for milliseconds"
	[ "$1" -ge $(( (1 << ($2 - 1)) * 1000 )) ] || fail "the maximum $1 ns is under the histogram's highest slot"
}
