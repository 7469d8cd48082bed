# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the live-kernel tests: POSIX sh (runs under busybox in the
# QEMU guest too), written once for cgroup v1 and v2.
#
# Every cgroup a test makes is named cgs-test-<pid>-<name> and is removed by
# cg_cleanup, which the runner calls after each test, pass or fail. Only the
# test's own processes are moved, and only within the cpu hierarchy.

CGSCHED=${CGSCHED:-$ROOT/cgsched}
CGWORK=${CGWORK:-$ROOT/.output/workloads/cgwork}
TMP=${TMPDIR:-/tmp}/cgs-live.$$
mkdir -p "$TMP"

# The cpu controller's hierarchy: CG_VER (1|2) and CG_ROOT, found as cgsched finds it.
cg_detect() {
	CG_ROOT=$(awk '$0 ~ / - cgroup / { n = split($NF, o, ","); for (i = 1; i <= n; i++) if (o[i] == "cpu") { print $5; exit } }' /proc/self/mountinfo)
	if [ -n "$CG_ROOT" ]; then
		CG_VER=1
		return 0
	fi
	for m in $(awk '$0 ~ / - cgroup2 / { print $5 }' /proc/self/mountinfo); do
		if grep -qw cpu "$m/cgroup.controllers" 2>/dev/null; then
			CG_ROOT=$m
			CG_VER=2
			return 0
		fi
	done
	echo "no cpu controller mounted" >&2
	return 1
}

# cg_create NAME [PARENT_REL]: makes a cgroup and sets CG to its relative
# path: /cgs-test-PID-NAME at the top, PARENT_REL/NAME below a test cgroup.
cg_create() {
	if [ -n "${2:-}" ]; then CG="$2/$1"; else CG="/cgs-test-$$-$1"; fi
	mkdir "$CG_ROOT$CG" || return 1
}

# Give a cgroup's children the cpu controller (v2 only; v1 always has it).
# v2 refuses this for a cgroup that holds processes: call it before cg_run.
cg_enable_children() {
	[ "$CG_VER" = 2 ] || return 0
	echo +cpu >"$CG_ROOT$1/cgroup.subtree_control"
}

cg_procs() { echo "$CG_ROOT$1/cgroup.procs"; }

# cg_run REL CMD...: run CMD inside the cgroup (moved before exec: no race).
cg_run() {
	_rel=$1
	shift
	sh -c 'echo $$ >"$0" && exec "$@"' "$(cg_procs "$_rel")" "$@"
}

# cg_spawn REL CMD...: the same in the background; SPAWNED is CMD's own pid
# (not a subshell's: `cg_run ... &` would background a function).
cg_spawn() {
	_rel=$1
	shift
	sh -c 'echo $$ >"$0" && exec "$@"' "$(cg_procs "$_rel")" "$@" &
	SPAWNED=$!
}

# Kill what is left in this run's cgroups and remove them, deepest first.
# Found by name, so it works from any subshell and after any failure.
cg_cleanup() {
	for top in "$CG_ROOT"/cgs-test-$$-*; do
		[ -d "$top" ] || continue
		for d in $(find "$top" -depth -type d); do
			for i in 1 2 3 4 5 6 7 8 9 10; do
				pids=$(cat "$d/cgroup.procs" 2>/dev/null)
				[ -z "$pids" ] && break
				kill -9 $pids 2>/dev/null
				sleep 0.1
			done
			rmdir "$d" 2>/dev/null || echo "cleanup: could not remove $d" >&2
		done
	done
}

# Quota as a fraction of one CPU: cg_quota REL QUOTA_US PERIOD_US ("max" for none).
cg_quota() {
	if [ "$CG_VER" = 1 ]; then
		echo "$3" >"$CG_ROOT$1/cpu.cfs_period_us" && {
			if [ "$2" = max ]; then echo -1; else echo "$2"; fi
		} >"$CG_ROOT$1/cpu.cfs_quota_us"
	else
		echo "$2 $3" >"$CG_ROOT$1/cpu.max"
	fi
}

# Throttled time in ns from cpu.stat (v1 throttled_time ns, v2 throttled_usec).
cg_throttled_ns() {
	if [ "$CG_VER" = 1 ]; then
		awk '$1 == "throttled_time" { print $2 }' "$CG_ROOT$1/cpu.stat"
	else
		awk '$1 == "throttled_usec" { print $2 * 1000 }' "$CG_ROOT$1/cpu.stat"
	fi
}

# Start cgsched in the background; CGS_PID, output in $TMP/cgs.out/.err.
# Waits until it says it is tracing (or fails).
cgs_start() {
	"$CGSCHED" "$@" >"$TMP/cgs.out" 2>"$TMP/cgs.err" &
	CGS_PID=$!
	for i in $(seq 1 100); do
		grep -q "tracing" "$TMP/cgs.err" 2>/dev/null && return 0
		kill -0 "$CGS_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "cgsched did not start: $(cat "$TMP/cgs.err")" >&2
	return 1
}

# Stop it with a signal (default INT) and wait; fails unless it exits 0.
cgs_stop() {
	kill -"${1:-INT}" "$CGS_PID" 2>/dev/null
	wait "$CGS_PID"
	_rc=$?
	CGS_PID=""
	[ "$_rc" = 0 ] || { echo "cgsched exited $_rc: $(cat "$TMP/cgs.err")" >&2; return 1; }
}

# The summary object's entry for a cgroup path: cgs_summary REL JQ_FILTER
cgs_summary() {
	jq -r --arg p "$1" "select(.kind == \"summary\") | .cgroups[] | select(.path == \$p) | $2" "$TMP/cgs.out"
}

# kv FIELD < "a=1 b=2": the value of FIELD from cgwork's last line.
kv() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { v = $2 } END { print v }'; }

# within A B PCT: |A - B| <= PCT% of B, with a message either way.
within() {
	awk -v a="$1" -v b="$2" -v p="$3" -v what="${4:-value}" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		if (b == 0) { printf "%s: reference is 0 (measured %s)\n", what, a; exit 1 }
		printf "%s: measured %.0f, kernel %.0f, off by %.2f%% (limit %s%%)\n", what, a, b, 100 * d / b, p
		exit (100 * d / b <= p) ? 0 : 1
	}'
}

# wait_line FILE PATTERN: until a line of FILE matches (up to 20 s; BPF
# programs take seconds to load in the slow guest). Fails the test otherwise.
wait_line() {
	for i in $(seq 1 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "'$2' never appeared in $1: $(cat "$1")"
}

# Tests run in a subshell each: fail ends the test (its EXIT trap cleans up).
fail() { echo "$*" >&2; exit 1; }
