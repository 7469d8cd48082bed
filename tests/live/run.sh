#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run the live-kernel tests: real BPF on the running kernel, real cgroups.
# Usage: tests/live/run.sh [SUBSTRING[,SUBSTRING...]]
# Runs the tests whose names hold one of the substrings (all without one)
# and none of those given as !SUBSTRING,
# each CGS_TEST_REPEAT times in a row (default 1: flakiness is measured by
# repeating a test alone, never retried to pass).
# Prints "CGS-TEST PASS|FAIL|SKIP name" per test (the QEMU stage reads these)
# and ends with "live: N passed, N failed, N skipped".
#
# The runner cannot hang: each test runs in a session of its own (setsid),
# bounded by CGS_TEST_TIMEOUT seconds (default 120, times CGS_TIME_SCALE).
# On expiry the test fails, naming itself; every process of its session is
# reported (command, state, signal masks, wchan, end of stderr) and killed,
# its cgroups removed, and the run goes on with the next test.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
# The tests: tests/live/t_*.sh, or CGS_TEST_DIR's (the harness's self-test).
TESTS=${CGS_TEST_DIR:-$ROOT/tests/live}
export CGS_RUN=$$
unset CGS_TMP
. "$ROOT/tests/live/lib.sh"
export CGS_TMP=$TMP CGS_TIME_SCALE ROOT TESTS
LIMIT=$(scaled "${CGS_TEST_TIMEOUT:-120}")

if [ "$(id -u)" != 0 ]; then
	echo "live tests need root" >&2
	exit 2
fi
command -v setsid >/dev/null || { echo "live tests need setsid (util-linux or busybox)" >&2; exit 2; }
cg_detect || exit 2
export CG_ROOT CG_VER
# Classic tracepoints and the tests' kernel checks want tracefs.
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
# What this kernel allows, probed once for the run: a probe loads and
# attaches every backend (about 9 s in the emulated guest), and its answer
# does not change meanwhile. Tests read it with probe_json;
# test_backend_pairs_load probes for itself.
# A nested run (the harness's self-test) takes its parent's.
if [ ! -s "${CGS_PROBE_JSON:-}" ]; then
	export CGS_PROBE_JSON="$TMP/probe.json"
	"$CGSCHED" probe --json >"$CGS_PROBE_JSON" 2>/dev/null || rm -f "$CGS_PROBE_JSON"
fi

pass=0 failn=0 skip=0
trap 'cg_cleanup; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP PIPE

# The processes of a session, by the session id in /proc/PID/stat.
session_pids() {
	for _s in /proc/[0-9]*/stat; do
		_f=$(sed 's/.*) //' "$_s" 2>/dev/null) || continue
		# shellcheck disable=SC2086
		set -- $_f # state ppid pgrp session ...
		[ "${4:-}" = "$sid" ] && echo "${_s#/proc/}" | cut -d/ -f1
	done
}

# A test that outlived its bound: report, kill its whole session, remove
# what record made for its processes.
stuck() {
	echo "TIMEOUT: $t still running after ${LIMIT}s; its processes:"
	pids=$(session_pids)
	for p in $pids; do proc_report "$p"; done
	# By pid, again until none is left: a dying shell may still fork.
	# (Neither dash's nor busybox's kill takes "--" for a group id.)
	all=$pids
	for _i in 1 2 3 4 5; do
		[ -z "$pids" ] && break
		# shellcheck disable=SC2086
		kill -9 $pids 2>/dev/null
		sleep 0.1
		pids=$(session_pids)
		all="$all $pids"
	done
	for p in $all; do
		d=$CG_ROOT/cgsched-record-$p
		[ -d "$d" ] || continue
		kill -9 $(cat "$d/cgroup.procs" 2>/dev/null) 2>/dev/null
		sleep 0.2
		rmdir "$d" 2>/dev/null && echo "removed $d, left by its killed record"
	done
}

for f in "$TESTS"/t_*.sh; do
	. "$f"
done
echo "live tests on $(uname -r), cgroup v$CG_VER at $CG_ROOT; each test bounded to ${LIMIT}s"
# selected FILTER: the test $t holds one of the filter's substrings and none
# of its "!SUBSTRING"s (a filter of only those: every other test).
selected() {
	_IFS=$IFS
	IFS=,
	_want=no _in=no
	for _f in ${1:-""}; do
		case "$_f" in
		!*) case "$t" in *"${_f#!}"*) IFS=$_IFS; return 1 ;; esac ;;
		*) _want=yes; case "$t" in *"$_f"*) _in=yes ;; esac ;;
		esac
	done
	IFS=$_IFS
	[ $_want = no ] || [ $_in = yes ]
}

for t in $(sed -n 's/^\(test_[a-z0-9_]*\)() *{.*/\1/p' "$TESTS"/t_*.sh); do
	selected "${1:-}" || continue
	for _rep in $(seq 1 "${CGS_TEST_REPEAT:-1}"); do
	start=$(date +%s)
	rm -f "$TMP/sid"
	# A directory of its own for each run of a test: nothing a run leaves
	# (a pid file) is found by the next one (CGS_TEST_REPEAT).
	tdir=$TMP/t.$t.$_rep
	mkdir -p "$tdir"
	# The test's shell leads a new session: its pid is the session and group id.
	# A failed test's processes are killed and reaped (waited for: a cgsched
	# still exiting held its port, and the next test's export found it in use);
	# only those named: a bare wait would wait for every child (a test's
	# wakers run for minutes, cg_cleanup ends them).
	# shellcheck disable=SC2016
	CGS_SID_FILE=$TMP/sid CGS_TMP=$tdir setsid sh -c 'echo $$ >"$CGS_SID_FILE"
		. "$ROOT/tests/live/lib.sh"
		for f in "$TESTS"/t_*.sh; do . "$f"; done
		CGS_PID="" CGS_BG=""
		trap '\''kill -9 $CGS_PID $CGS_BG 2>/dev/null; [ -z "$CGS_PID$CGS_BG" ] || wait $CGS_PID $CGS_BG 2>/dev/null; cg_cleanup'\'' EXIT
		set -u
		"$0"' "$t" </dev/null >"$TMP/$t.log" 2>&1 &
	tp=$!
	# The bound, without a poll beside the test (lib.sh says what polls
	# cost the emulated guest): a watchdog signals this shell at LIMIT, and
	# the signal ends the wait for the test early.
	timed_out=""
	trap 'timed_out=1' USR1
	# The watchdog signals only if its sleep ran out (killed: no signal).
	( sleep "$LIMIT" & echo $! >"$tdir/wd.pid"; wait $! && kill -USR1 $$ ) 2>/dev/null &
	wd=$!
	wait $tp
	rc=$?
	if [ -n "$timed_out" ]; then
		sid=$(cat "$TMP/sid" 2>/dev/null)
		[ -z "$sid" ] && sid=$tp
		# Not straight into the log: it is the stuck processes' stderr.
		stuck >"$TMP/stuck" 2>&1
		cat "$TMP/stuck" >>"$TMP/$t.log"
		wait $tp
		rc=124
	fi
	# The watchdog's sleep (its pid is written at once; a test of no time
	# may end first), then its shell, reaped before the next test's trap.
	trap : USR1
	if [ -z "$timed_out" ]; then
		for _i in $(seq 1 100); do
			[ -s "$tdir/wd.pid" ] && break
			nap 0.01
		done
		# Without its pid, the shell: its sleep is left to run out, harmless.
		if [ -s "$tdir/wd.pid" ]; then kill "$(cat "$tdir/wd.pid")"; else kill $wd; fi 2>/dev/null
	fi
	wait $wd 2>/dev/null
	cg_cleanup
	secs=$(( $(date +%s) - start ))
	if [ $rc = 0 ]; then
		pass=$((pass + 1)); echo "CGS-TEST PASS $t (${secs}s)"
	elif [ $rc = 77 ]; then
		skip=$((skip + 1)); echo "CGS-TEST SKIP $t: $(tail -n 1 "$TMP/$t.log")"
	else
		failn=$((failn + 1)); echo "CGS-TEST FAIL $t (${secs}s)${timed_out:+: timed out after ${LIMIT}s}"
	fi
	[ $rc = 0 ] || sed 's/^/    /' "$TMP/$t.log"
	[ $rc = 0 ] && [ -n "${CGS_VERBOSE_TESTS:-}" ] && sed 's/^/    /' "$TMP/$t.log"
	done
done
echo "live: $pass passed, $failn failed, $skip skipped"
[ $failn = 0 ]
