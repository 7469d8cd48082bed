# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the live-kernel tests: POSIX sh (runs under busybox in the
# QEMU guest too), written once for cgroup v1 and v2.
#
# Every cgroup a test makes is named cgs-test-<run>-<name> and is removed by
# cg_cleanup, which the runner calls after each test, pass or fail. Only the
# test's own processes are moved, and only within the cpu hierarchy.
#
# Every wait is bounded. Bounds are in seconds on this host, times
# CGS_TIME_SCALE where everything runs slower (the emulated guest).

CGSCHED=${CGSCHED:-$ROOT/cgsched}

# The tests read JSON with gojq, the same language as jq: Debian 12's jq 1.6
# compiles its library of builtins at every start, 36 ms on this host and
# 390-450 ms in the emulated guest, against gojq's 4 and 44 ms (ten runs each
# of `jq -n 1`, docs/testing.md). A test's loop of a few jq calls a turn
# spent seconds a turn on it in the guest.
if command -v gojq >/dev/null 2>&1; then
	jq() { gojq "$@"; }
fi

# probe_json: `cgsched probe --json`, as run.sh took it for the run (or now).
probe_json() {
	if [ -s "${CGS_PROBE_JSON:-}" ]; then cat "$CGS_PROBE_JSON"; else "$CGSCHED" probe --json; fi
}
CGWORK=${CGWORK:-$ROOT/.output/workloads/cgwork}
UTF8CHECK=$ROOT/.output/workloads/utf8check
PTYRUN=$ROOT/.output/workloads/ptyrun
# One id for the whole run: tests run in shells of their own, whose $$ differ.
CGS_RUN=${CGS_RUN:-$$}
CGS_TIME_SCALE=${CGS_TIME_SCALE:-1}
TMP=${CGS_TMP:-${TMPDIR:-/tmp}/cgs-live.$CGS_RUN}
mkdir -p "$TMP"

# scaled SECS: the bound for this machine.
scaled() { echo $(( $1 * CGS_TIME_SCALE )); }

# The waits poll with the shell's builtins only. In the emulated guest a
# fork and exec costs ~10 ms of the one host thread both vCPUs share: the
# loops that ran date, grep, sed and sleep every 50-100 ms (30-70 ms of CPU a
# turn) slowed the cgsched start-up they waited for by 75 %, and the
# runner's loop, beside every test, everything by 25 % (docs/testing.md,
# the "Bounded waits" rule).

# proc_gone PID: the process has ended (a zombie has too: kill -0 still passes it).
proc_gone() {
	{ read -r _st <"/proc/$1/stat"; } 2>/dev/null || return 0
	_st=${_st##*) } # the command name may hold ") "; the state follows the last
	[ "${_st%% *}" = Z ]
}

# now_s: NOW, whole seconds since boot (a deadline's clock).
now_s() {
	read -r NOW _r </proc/uptime
	NOW=${NOW%.*}
}

# deadline SECS: the bound of a wait, SECS (scaled) from now;
# past_deadline: it has come.
deadline() {
	now_s
	DEADLINE=$((NOW + $1 * CGS_TIME_SCALE))
}
past_deadline() {
	now_s
	[ "$NOW" -ge "$DEADLINE" ]
}

# nap SECS: sleep, in the shell where it can (busybox's read -t takes
# fractions: a read from a FIFO nobody writes), else sleep(1).
NAP_FIFO=$TMP/.nap
[ -p "$NAP_FIFO" ] || mkfifo "$NAP_FIFO" 2>/dev/null
if [ -z "$( (read -t 0.001 _x 0<>"$NAP_FIFO") 2>&1)" ] && [ -p "$NAP_FIFO" ]; then
	nap() { read -t "$1" _x 0<>"$NAP_FIFO"; return 0; }
else
	nap() { sleep "$1"; }
fi

# file_has FILE PATTERN: a line of FILE matches the shell pattern PATTERN.
file_has() {
	[ -r "$1" ] || return 1
	while IFS= read -r _l || [ -n "$_l" ]; do
		# shellcheck disable=SC2254 # a pattern, on purpose
		case $_l in $2) return 0 ;; esac
	done <"$1"
	return 1
}

# proc_report PID: what a stuck process is doing, for the log: its command,
# state, signal masks (a stop signal it never sees shows as ignored or
# blocked), where it sleeps in the kernel, and the end of its stderr.
proc_report() {
	_p=$1
	[ -r "/proc/$_p/status" ] || { echo "  pid $_p: gone"; return; }
	echo "  pid $_p: $(tr '\0' ' ' <"/proc/$_p/cmdline" 2>/dev/null)"
	grep -E '^(State|SigBlk|SigIgn|SigCgt):' "/proc/$_p/status" 2>/dev/null | sed 's/^/    /'
	echo "    wchan: $(cat "/proc/$_p/wchan" 2>/dev/null)"
	_e=$(readlink "/proc/$_p/fd/2" 2>/dev/null)
	if [ -f "$_e" ]; then
		echo "    stderr ($_e), last lines:"
		tail -n 5 "$_e" | sed 's/^/      /'
	fi
}

# wait_bounded PID SECS WHAT: wait for a child of this shell, at most SECS
# (scaled). Sets WAIT_RC to its exit status. On expiry: its report in the
# log, SIGKILL, and the test fails naming WHAT.
wait_bounded() {
	deadline "$2"
	while ! proc_gone "$1"; do
		if past_deadline; then
			echo "$3: still running after $(scaled "$2") s" >&2
			proc_report "$1" >&2
			kill -9 "$1" 2>/dev/null
			wait "$1" 2>/dev/null
			fail "$3 did not end within $(scaled "$2") s"
		fi
		nap 0.05
	done
	wait "$1"
	WAIT_RC=$?
}

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
	if [ -n "${2:-}" ]; then CG="$2/$1"; else CG="/cgs-test-$CGS_RUN-$1"; fi
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
# Found by name, so it works from any subshell and after any failure. The
# processes of a whole tree at once: a fleet of 300 cgroups, a nap each,
# took 30 s.
cg_cleanup() {
	for top in "$CG_ROOT"/cgs-test-$CGS_RUN-*; do
		[ -d "$top" ] || continue
		for i in 1 2 3 4 5 6 7 8 9 10; do
			pids=$(find "$top" -name cgroup.procs -exec cat {} + 2>/dev/null)
			[ -z "$pids" ] && break
			kill -9 $pids 2>/dev/null
			nap 0.1
		done
		for d in $(find "$top" -depth -type d); do
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
# Waits (up to 20 s, scaled) until it says it is tracing, or fails. The
# files are emptied first: the shell opens them in the child, after the
# fork, so without that the first look could read the last run's "tracing".
cgs_start() {
	: >"$TMP/cgs.out"
	: >"$TMP/cgs.err"
	"$CGSCHED" "$@" >"$TMP/cgs.out" 2>"$TMP/cgs.err" &
	CGS_PID=$!
	deadline 20
	while ! past_deadline; do
		file_has "$TMP/cgs.err" "cgsched: tracing*" && return 0
		proc_gone "$CGS_PID" && break
		nap 0.05
	done
	echo "cgsched did not start: $(cat "$TMP/cgs.err")" >&2
	proc_report "$CGS_PID" >&2
	return 1
}

# Stop it with a signal (default INT) and wait, at most 20 s (scaled);
# fails unless it exits 0.
cgs_stop() {
	kill -"${1:-INT}" "$CGS_PID" 2>/dev/null
	wait_bounded "$CGS_PID" 20 "cgsched after SIG${1:-INT}"
	CGS_PID=""
	[ "$WAIT_RC" = 0 ] || { echo "cgsched exited $WAIT_RC: $(cat "$TMP/cgs.err")" >&2; return 1; }
}

# The summary object's entry for a cgroup path: cgs_summary REL JQ_FILTER
cgs_summary() {
	jq -r --arg p "$1" "select(.kind == \"summary\") | .cgroups[] | select(.path == \$p) | $2" "$TMP/cgs.out"
}

# cgs_intervals PATH FIELD: FIELD of PATH's rows summed over the intervals
# (0: none). A slice credited to one cgroup while it ran and found another's
# later is taken back from no interval: this sum then exceeds the summary.
cgs_intervals() {
	jq -s --arg p "$1" "[.[] | select(.kind == \"interval\") | .cgroups[] | select(.path == \$p) | $2] | add // 0" "$TMP/cgs.out"
}

# cgs_episodes PATH PERIOD_NS: PATH's throttle episodes in top --json's output
# (each interval object lists those that ended in it, the summary those
# since the last): "COUNT SPANNED LONGEST...", their number, the periods
# their lengths span at most (each one's ceil(duration / period)), and the
# four longest in ms. One late close and all a little long look different.
cgs_episodes() {
	jq -rs --arg p "$1" --argjson per "$2" '[.[] | .episodes[]? | select(.path == $p) | .duration_ns] |
		"\(length) \(map((. + $per - 1) / $per | floor) | add // 0) \(sort | reverse | .[:4] | map(. / 1e6 | floor) | join(" "))"' "$TMP/cgs.out"
}

# burn_in REL THREADS SECONDS CPU: cgwork burn (CPU -1: unpinned), moved
# into REL and out again by cgwork while it sleeps (CGWORK_ENTER/LEAVE,
# cgwork.c burn_window), so that the schedstat figure it prints covers
# exactly its tasks' time in REL: no shell start-up before, no exit tail
# after, and no wait between a move and a read (a task that moves itself is
# rescheduled by the move: once 2.3 % of the guest's figure).
burn_in() {
	CGWORK_ENTER="$(cg_procs "$1")" CGWORK_LEAVE="$(cg_procs "")" "$CGWORK" burn "$2" "$3" "$4"
}

# uptime_ms: the system's uptime in ms (10 ms steps; busybox's date has no %N).
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# kv FIELD < "a=1 b=2": the value of FIELD from cgwork's last line.
kv() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { v = $2 } END { print v }'; }

# within A B PCT: |A - B| <= PCT% of B, with a message either way.
# within_plus MEASURED REF PCT SLACK_NS WHAT: as within, with SLACK_NS more allowed.
within_plus() {
	awk -v a="$1" -v b="$2" -v p="$3" -v slack="$4" -v what="${5:-value}" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		if (b == 0) { printf "%s: reference is 0 (measured %s)\n", what, a; exit 1 }
		printf "%s: measured %.0f, kernel %.0f, off by %.2f%% (limit %s%% + %.0f ns)\n", what, a, b, 100 * d / b, p, slack
		exit (d <= b * p / 100 + slack) ? 0 : 1
	}'
}

within() {
	awk -v a="$1" -v b="$2" -v p="$3" -v what="${4:-value}" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		if (b == 0) { printf "%s: reference is 0 (measured %s)\n", what, a; exit 1 }
		printf "%s: measured %.0f, kernel %.0f, off by %.2f%% (limit %s%%)\n", what, a, b, 100 * d / b, p
		exit (100 * d / b <= p) ? 0 : 1
	}'
}

# wait_line FILE PATTERN: until a line of FILE matches the shell pattern
# *PATTERN* (up to 20 s, scaled; BPF programs take seconds to load in the
# slow guest). Fails the test otherwise.
wait_line() {
	deadline 20
	while ! past_deadline; do
		file_has "$1" "*$2*" && return 0
		nap 0.1
	done
	fail "'$2' never appeared in $1: $(cat "$1")"
}

# Tests run in a subshell each: fail ends the test (its EXIT trap cleans up).
fail() { echo "$*" >&2; exit 1; }
