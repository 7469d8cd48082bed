# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --priority (issue 19): cgsched's own threads at a real-time policy or a
# raised nice, every thread of them, and nothing it starts; refusals are one
# line and exit 2. Read from /proc (fields 19 nice, 40 rt_priority, 41
# policy of stat), the same under busybox.

# sched_of PID [TID]: "POLICY RTPRIO NICE" of a thread (the process's first without TID).
sched_of() {
	sed 's/.*) //' "/proc/$1/task/${2:-$1}/stat" | awk '{ print $39, $38, $17 }'
}

# threads_at PID "POLICY RTPRIO NICE": every thread of PID is at it, or fail naming one.
threads_at() {
	_n=0
	for _t in /proc/"$1"/task/*; do
		_s=$(sched_of "$1" "${_t##*/}")
		echo "  thread ${_t##*/} ($(cat "$_t/comm")): policy, rt priority, nice: $_s"
		[ "$_s" = "$2" ] || fail "thread ${_t##*/} of cgsched is at '$_s', not '$2'"
		_n=$((_n + 1))
	done
	[ $_n -ge "${3:-1}" ] || fail "cgsched had $_n threads, expected at least ${3:-1}"
}

test_priority_own_threads_only() {
	# top: its one thread at SCHED_FIFO (policy 1) 7.
	cgs_start top --priority rt:7 -i 1h || fail "top --priority rt:7 did not start"
	threads_at "$CGS_PID" "1 7 0"
	cgs_stop TERM || fail "top --priority did not stop cleanly"
	# export: the tracing thread real-time; the HTTP threads, running before
	# tracing starts, raised too, but never real-time: they answer strangers.
	cgs_start export --priority rt --listen "127.0.0.1:$(( 20000 + (CGS_RUN % 2000) * 4 + 3 ))" ||
		fail "export --priority rt did not start"
	n=0
	for _t in /proc/"$CGS_PID"/task/*; do
		_s=$(sched_of "$CGS_PID" "${_t##*/}")
		echo "  thread ${_t##*/} ($(cat "$_t/comm")): policy, rt priority, nice: $_s"
		if [ "${_t##*/}" = "$CGS_PID" ]; then
			[ "$_s" = "1 1 0" ] || fail "export's tracing thread at '$_s', not SCHED_FIFO 1"
		else
			[ "$_s" = "0 0 -20" ] || fail "export's thread ${_t##*/} at '$_s': not nice -20 (real-time is for tracing only)"
			n=$((n + 1))
		fi
	done
	[ $n -ge 1 ] || fail "export had no HTTP thread"
	cgs_stop TERM || fail "export --priority did not stop cleanly"
	# record: cgsched raised, its command an ordinary task (SCHED_RESET_ON_FORK).
	"$CGSCHED" record -q --priority rt:9 -o "$TMP/r.json" -- \
		sh -c 'sed "s/.*) //" /proc/self/stat | awk "{ print \$39, \$38, \$17 }"' >"$TMP/o" 2>"$TMP/e"
	echo "record --priority rt:9: its command is at '$(cat "$TMP/o")' (policy, rt priority, nice)"
	[ "$(cat "$TMP/o")" = "0 0 0" ] || fail "record's command inherited cgsched's priority: $(cat "$TMP/o" "$TMP/e")"
	"$CGSCHED" record -q --priority nice:-8 -o "$TMP/r.json" -- \
		sh -c 'sed "s/.*) //" /proc/self/stat | awk "{ print \$39, \$38, \$17 }"' >"$TMP/o" 2>"$TMP/e"
	echo "record --priority nice:-8: its command is at '$(cat "$TMP/o")'"
	[ "$(cat "$TMP/o")" = "0 0 0" ] || fail "record's command inherited cgsched's nice: $(cat "$TMP/o" "$TMP/e")"
	# And cgsched itself was at nice -8 meanwhile.
	cgs_start hist --priority nice:-8 -d 1h || fail "hist --priority nice:-8 did not start"
	threads_at "$CGS_PID" "0 0 -8"
	cgs_stop TERM || fail "hist --priority did not stop cleanly"
}

# prio_refused LABEL PATTERN CMD...: exit 2, one line on stderr matching PATTERN.
prio_refused() {
	_what=$1 _pat=$2
	shift 2
	"$@" >"$TMP/o" 2>"$TMP/e" &
	wait_bounded $! 20 "$_what"
	echo "$_what -> exit $WAIT_RC: $(cat "$TMP/e")"
	[ "$WAIT_RC" = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && grep -q -- "$_pat" "$TMP/e"
}

test_priority_refusals() {
	bad=0
	for v in rt:0 rt:100 rt: rt:1x nice:0 nice:5 nice:-21 nice fifo ""; do
		prio_refused "top --priority '$v'" "expected rt, rt:N" "$CGSCHED" top -n 1 --priority "$v" || bad=$((bad + 1))
	done
	prio_refused "record --priority rt:0" "expected rt" "$CGSCHED" record --priority rt:0 -- true || bad=$((bad + 1))
	ls "$CG_ROOT" | grep -q "^cgsched-record-" && { echo "a refused record left its cgroup"; bad=$((bad + 1)); }
	# Without CAP_SYS_NICE (and RLIMIT_RTPRIO 0, the default): the privilege named.
	if setpriv --bounding-set -sys_nice true 2>/dev/null && [ "$(ulimit -r)" = 0 ]; then
		prio_refused "rt without CAP_SYS_NICE" "needs CAP_SYS_NICE, or an RLIMIT_RTPRIO" \
			setpriv --bounding-set -sys_nice "$CGSCHED" top -n 1 --priority rt:3 || bad=$((bad + 1))
		prio_refused "nice without CAP_SYS_NICE" "needs CAP_SYS_NICE, or an RLIMIT_NICE" \
			setpriv --bounding-set -sys_nice "$CGSCHED" top -n 1 --priority nice:-3 || bad=$((bad + 1))
	else
		echo "no setpriv --bounding-set here (or RLIMIT_RTPRIO is raised): the privilege case not run"
	fi
	# Real-time group scheduling (v1, CONFIG_RT_GROUP_SCHED): a new cpu cgroup has no RT runtime.
	cg_create prio-nort && N=$CG
	if [ -f "$CG_ROOT$N/cpu.rt_runtime_us" ] && [ "$(cat "$CG_ROOT$N/cpu.rt_runtime_us")" = 0 ]; then
		prio_refused "rt in a cgroup without RT runtime" "cgroup $N (cpu.rt_runtime_us 0" \
			cg_run "$N" "$CGSCHED" top -n 1 --priority rt || bad=$((bad + 1))
		# nice is no real-time policy: allowed there.
		cg_run "$N" "$CGSCHED" top -q -n 1 -i 100ms --priority nice:-2 >/dev/null 2>"$TMP/e" ||
			{ echo "nice refused in $N: $(cat "$TMP/e")"; bad=$((bad + 1)); }
	else
		echo "no real-time group scheduling here: the cgroup case not run"
	fi
	[ $bad = 0 ] || fail "$bad refusals not as they should be"
}
