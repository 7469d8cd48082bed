# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stop signals at any moment of start-up: probing, loading, attaching.
# cgsched is started as a background job of this non-interactive shell, so
# SIGINT starts out ignored, as it did when the guest run hung: cgsched must
# handle it from the first line of main all the same.

# cgsched's BPF programs still loaded (names as bpftool shows them, cut at 15).
cgs_progs() {
	bpftool prog show 2>/dev/null |
		grep -c -E 'name ((btf|raw)_(switch|wakeup)|fexit_throttle|fentry_unthrot|kprobe_|kretprobe_|cgroup_bw)'
}
cgs_links() { bpftool link list 2>/dev/null | grep -c '^[0-9]'; }

# nothing_left PROGS LINKS: back to the counts before (the kernel frees
# programs after an RCU grace period once the last fd closes: up to 3 s).
nothing_left() {
	for _i in $(seq 1 $((30 * CGS_TIME_SCALE))); do
		[ "$(cgs_progs)" -le "$1" ] && [ "$(cgs_links)" -le "$2" ] && return 0
		nap 0.1
	done
	echo "left behind: $(cgs_progs) programs (before: $1), $(cgs_links) links (before: $2)"
	bpftool prog show 2>/dev/null | grep -E 'name ' | tail -n 5
	return 1
}

# handler_in PID: its SIGINT and SIGTERM handlers are in place (SigCgt bits 2
# and 15): main has begun. A signal before that, to a process that starts
# with SIGINT ignored, is lost whatever the program does.
handler_in() {
	_c=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$_c" ] && [ $(( 0x$_c & 0x4002 )) = $(( 0x4002 )) ]
}

# startup_ms: STARTUP, how long one `top` takes from main's first line to tracing, here and now.
startup_ms() {
	: >"$TMP/st.err"
	"$CGSCHED" top --json -i 1h >/dev/null 2>"$TMP/st.err" &
	_p=$!
	CGS_BG="$CGS_BG $_p"
	for _w in $(seq 1 1000); do handler_in $_p && break; proc_gone $_p && break; nap 0.001; done
	_t0=$(uptime_ms)
	wait_line "$TMP/st.err" "tracing"
	STARTUP=$(( $(uptime_ms) - _t0 ))
	kill -INT $_p
	wait_bounded $_p 10 "top after SIGINT"
}

# Twenty moments. Sixteen from the first line of main to one and a half
# times start-up's length (measured first: 0.2-0.4 s here, 1-3 s in the
# emulated guests, slower beside another guest), at least 0.7 s, closer
# together early on, where start-up is: SPAN x (i/15)^2, so 13 of them fall
# in a start-up of the measured length, and at least 3 on either side while
# start-up takes from a tenth (4 before) to 1.3 times (3 after) that. Four
# more right after start-up ends, timed from the "tracing" line: 0, 20, 100
# and 300 ms after it, whatever start-up took (they were once
# spread to three times start-up's length, which cost a guest 30-60 s of
# sleeping on stops that all came long after tracing began). Each: top or
# record, SIGINT or SIGTERM. A stop before tracing began exits 128+N with one
# line and nothing attached; after it, top prints its summary and exits 0,
# record passes the signal to CMD and exits with CMD's 128+N. The record
# cgroup is gone either way.
test_stop_during_startup() {
	command -v bpftool >/dev/null || { echo "no bpftool to see what is loaded"; exit 77; }
	p0=$(cgs_progs)
	l0=$(cgs_links)
	startup_ms
	span=$((3 * STARTUP / 2))
	[ "$span" -ge 700 ] || span=700
	echo "start-up took $STARTUP ms: 16 moments over $span ms, 4 after the tracing line"
	before=0 after=0 bad=0
	for i in $(seq 0 19); do
		case $((i % 4)) in
		0) cmd=top sig=INT ;;
		1) cmd=record sig=TERM ;;
		2) cmd=top sig=TERM ;;
		3) cmd=record sig=INT ;;
		esac
		name=cgs-test-$CGS_RUN-stop$i
		: >"$TMP/s.err"
		if [ $cmd = top ]; then
			"$CGSCHED" top --json -i 1h >"$TMP/s.out" 2>"$TMP/s.err" &
		else
			"$CGSCHED" record -q --name "$name" -- sleep 60 >"$TMP/s.out" 2>"$TMP/s.err" &
		fi
		pid=$!
		CGS_BG="$CGS_BG $pid"
		for _w in $(seq 1 1000); do handler_in $pid && break; proc_gone $pid && break; nap 0.001; done
		if [ "$i" -lt 16 ]; then
			ms=$((span * i * i / 225))
			when="${ms} ms"
		else
			case $i in 16) ms=0 ;; 17) ms=20 ;; 18) ms=100 ;; 19) ms=300 ;; esac
			when="tracing+${ms} ms"
			if [ $cmd = top ]; then
				wait_line "$TMP/s.err" "tracing"
			else
				# record -q prints no line: its cgroup holds the command once
				# tracing began (kernfs files say size 0: read it). Not
				# wait_line: polled every 10 ms, not 100, for the moments
				# just after, and a failure shows record's stderr.
				deadline 20
				until file_has "$CG_ROOT/$name/cgroup.procs" "?*"; do
					past_deadline && fail "record never started its command: $(cat "$TMP/s.err")"
					nap 0.01
				done
			fi
		fi
		sleep "$(awk -v m=$ms 'BEGIN { printf "%.3f", m / 1000 }')"
		t0=$(uptime_ms)
		kill -$sig $pid
		wait_bounded $pid 10 "$cmd after SIG$sig at $when"
		rc=$WAIT_RC
		t1=$(uptime_ms)
		if [ $sig = INT ]; then want=130; else want=143; fi
		if grep -q "stopped by SIG$sig before tracing began" "$TMP/s.err"; then
			phase="before tracing"
			before=$((before + 1))
		else
			phase="while tracing"
			after=$((after + 1))
			[ $cmd = top ] && want=0
		fi
		ok=yes
		[ "$rc" = "$want" ] || ok="no (expected exit $want)"
		[ $cmd = top ] && [ $rc = 0 ] && ! jq -e 'select(.kind == "summary")' "$TMP/s.out" >/dev/null 2>&1 && ok="no (no summary)"
		[ $cmd = record ] && [ -d "$CG_ROOT/$name" ] && ok="no (cgroup $name left behind)"
		nothing_left "$p0" "$l0" || ok="no (BPF left loaded)"
		echo "$(printf '%16s' "$when")  $cmd SIG$sig -> exit $rc, $phase, in $((t1 - t0)) ms, clean $(( $(uptime_ms) - t1 )) ms later: ok $ok"
		[ "$ok" = yes ] || { bad=$((bad + 1)); sed 's/^/      stderr: /' "$TMP/s.err"; }
	done
	echo "$before stops before tracing began, $after while tracing"
	[ $bad = 0 ] || fail "$bad of 20 stops went wrong"
	# The moments must cover start-up itself, not only the traced run.
	[ $before -ge 3 ] && [ $after -ge 3 ] || fail "the 20 moments did not straddle start-up ($before before, $after after)"
}

# The hang the guest run hit, reproduced: start-up slowed down on purpose
# (cgsched in a cgroup with 2 ms of CPU per 100 ms takes seconds to load),
# SIGINT sent to a background job while it loads. Before handlers were
# installed from main's first line the signal was lost (SigIgn) and
# `top -i 1h` ran on; now it stops, with nothing attached.
#
# Whether start-up was still under way when the signal landed is told by
# what cgsched printed, read after it exited: the "tracing" line comes
# after the last point where start-up gives up. The test once read it
# before sending and lost that race (5 % of a CPU: start-up ended within
# the milliseconds between the check and the kill, exit 0 after the line).
# A signal after the line must still end it, with a summary and exit 0.
test_stop_while_loading_slowly() {
	command -v bpftool >/dev/null || { echo "no bpftool to see what is loaded"; exit 77; }
	p0=$(cgs_progs)
	l0=$(cgs_links)
	cg_create slowstart && S=$CG
	cg_quota "$S" 2000 100000
	: >"$TMP/s.err"
	cg_spawn "$S" "$CGSCHED" top --json -i 1h >"$TMP/s.out" 2>"$TMP/s.err"
	pid=$SPAWNED
	CGS_BG="$CGS_BG $pid"
	# From main's first line: before it, at 5% of an emulated CPU the dynamic
	# loader alone can take a second, and a SIGINT there is lost to any program.
	for _w in $(seq 1 $((200 * CGS_TIME_SCALE))); do handler_in $pid && break; proc_gone $pid && break; nap 0.05; done
	handler_in $pid || fail "cgsched never installed its handlers: $(cat "$TMP/s.err")"
	sleep 1
	echo "1 s after main began, at 2% of a CPU; SIGINT (ignored at exec in this background job)"
	grep -E '^(SigIgn|SigCgt):' "/proc/$pid/status"
	kill -INT $pid
	t0=$(date +%s)
	wait_bounded $pid 30 "cgsched top after SIGINT during a slow start-up"
	echo "exit $WAIT_RC after $(( $(date +%s) - t0 )) s: $(cat "$TMP/s.err")"
	if grep -q "^cgsched: tracing" "$TMP/s.err"; then
		# Start-up had ended (2 % of a CPU was enough here): stopped as any run is.
		[ "$WAIT_RC" = 0 ] || fail "started, then SIGINT: expected exit 0"
		grep -q '"kind":"summary"' "$TMP/s.out" || fail "started, then SIGINT: expected the summary"
		echo "start-up had ended before the signal: stopped as a running top"
	else
		[ "$WAIT_RC" = 130 ] || fail "expected exit 130"
		grep -q "stopped by SIGINT before tracing began" "$TMP/s.err" || fail "expected the stop line"
	fi
	nothing_left "$p0" "$l0" || fail "BPF programs or links left behind"
}
