#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The whole suite, as `make test` runs it: unit tests (Criterion), the same
# built with ASan and UBSan, each fuzz harness for a few seconds, a live smoke
# of the sanitized loader, then the live-kernel tests on this machine and on
# the QEMU guest. Ends with one "total: N passed, N failed" line.
set -u
cd "$(dirname "$0")/.."
passed=0 failed=0 skipped=0
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

unit() { # unit BINARY LABEL: Criterion's synthesis into the totals
	out=$(LANG=C "$1" 2>&1)
	echo "$out" | grep -E '^\[(FAIL|----)\]' | grep -v -E '^\[----\] *(Criterion|Running|Synthesis)' |
		sed "s/^/$2 /" >>"$logs/recap"
	echo "$out" | grep -v '^\[----\]' | tail -n 20 | sed "s/^/$2 /"
	syn=$(echo "$out" | grep 'Synthesis:')
	p=$(echo "$syn" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
	f=$(echo "$syn" | sed -n 's/.*Failing: \([0-9]*\) | Crashing: \([0-9]*\).*/\1 \2/p')
	if [ -z "$p" ]; then
		echo "$2 unit tests did not run"
		failed=$((failed + 1))
	else
		passed=$((passed + p))
		for n in $f; do failed=$((failed + n)); done
	fi
}
# counted LOG PREFIX [WHAT]: add a stage's closing "PREFIX: N passed, N
# failed[, N skipped]" line; one more failure, naming WHAT, when there is none.
# COUNTS: that line's "passed failed skipped" (empty when none).
counted() {
	c=$(tail -n 1 "$1" | sed -n "s/^$2: \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}.*/\1 \2 \4/p")
	if [ -z "$c" ]; then
		echo "${3:-$2} did not finish: $(tail -n 1 "$1")"
		failed=$((failed + 1))
	else
		set -- $c
		passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + ${3:-0}))
	fi
	COUNTS=$(echo $c)
}

# took STAGE: how long the stage just done took ("time: STAGE N s"), so a
# run's log says where the suite's minutes go.
# TOOK: those seconds.
stage_t0=$(date +%s)
took() {
	_now=$(date +%s)
	TOOK=$((_now - stage_t0))
	echo "time: $1 $TOOK s"
	stage_t0=$_now
}

unit .output/unit-tests "[unit]"
took unit
# The loader's layers include only those below them (docs/design.md).
tests/layers.sh 2>&1 | tee "$logs/layers"
counted "$logs/layers" layers
took layers
# One cleanup rule: a function's one label is out or fail (CONTRIBUTING.md).
tests/cleanup.sh 2>&1 | tee "$logs/cleanup"
counted "$logs/cleanup" cleanup
took cleanup
# The writing rules a machine can check (CONTRIBUTING.md).
tests/docs.sh 2>&1 | tee "$logs/docs"
counted "$logs/docs" docs
took docs
# The Prometheus rules and alerts: promtool's checks and unit tests.
tests/prometheus.sh 2>&1 | tee "$logs/prometheus"
counted "$logs/prometheus" prometheus
took prometheus
# The same with ASan and UBSan: a report crashes the test, and Criterion counts it.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 unit .output/asan/unit-tests "[asan]"
took asan
# Every parser of outside input under libFuzzer, briefly (make fuzz: 60 s each).
tests/fuzz/run.sh "${CGS_FUZZ_SECONDS:-5}" 2>&1 | tee "$logs/fuzz"
counted "$logs/fuzz" fuzz
took fuzz
tests/sanitize/smoke.sh 2>&1 | tee "$logs/san"
counted "$logs/san" sanitize
took sanitize

# (Not tee /dev/stderr: when stderr is a file, that reopens and truncates it.)
tests/live/run.sh 2>&1 | tee "$logs/live"
counted "$logs/live" live "live tests"
host_counts=$COUNTS
took live
live_secs=$TOOK

# The live tests on Debian's other kernels under QEMU (tests/vm/kernels):
# every test on 6.1 but VM_SHARED, the core on the others and VM_SHARED on
# 7.3 (CGS_VM_KERNELS picks which;
# CGS_NO_VM=1 skips them all). The core: every backend pair loads and
# attaches, on-CPU time and run-queue waits against schedstat, throttled time
# against cpu.stat, record of a 25 % quota, slots under churn, a task
# moved while it runs, a signal
# during start-up, nothing left attached, sched_ext where the kernel has it,
# top's screen (its programs: the per-task figures of one cgroup at a time).
VM_CORE=test_backend_pairs_load,test_top_screen_on_pty,test_oncpu_matches_schedstat,test_runq_matches_rundelay,test_throttle_matches_cpustat,test_record_quota_25pct,test_slots_removed_come_back,test_moved_by_another_while_running,test_thread_moved_by_another_while_running,test_stop_during_startup,test_sigterm_detaches,test_sched_ext
# Tests of the "all" guest's share run in the "core+shared" guest instead
# (tests/vm/kernels: 6.1 and 7.3, both cgroup v2), so that the two lanes
# take about as long; docs/testing.md ("The stages") has the lanes' times.
# Every test still runs on a v2 guest.
VM_SHARED=test_bad_input_table,test_advise_steady,test_advise_pulse_burst,test_advise_barrier,test_stop_while_loading_slowly,test_record_attach_windows,test_watch_burst_one_incident
# On the host only: statistics of hundreds of short runs, which say nothing
# of a kernel that the other tests of record do not, and would take the
# emulated guest tens of minutes; and /readyz under unpaired events, which
# an emulated guest makes too few of to check.
HOST_ONLY=test_gate_null_comparisons,test_gate_known_regressions,test_export_ready_unpaired,test_advise_throttled_known_answers
# Not in the guests of make test either: tests of the loader's own logic,
# which no kernel changes (the harness, check's reading of reports, the
# journal's refusals, escaping of names, CI output). make test-matrix runs them.
LOADER_ONLY=test_harness_bounds_a_stuck_test,test_check_reads_reports_strictly,test_journal_second_instance_refused,test_journal_untrusted_refused,test_odd_names_escaped,test_gate_junit_and_github
vm_results=""
if [ -z "${CGS_NO_VM:-}" ]; then
	# make test-matrix (CGS_VM_MATRIX=1): every kernel of the table, every test.
	if [ -n "${CGS_VM_MATRIX:-}" ]; then
		kernels=$(awk '!/^#/ && NF { print $1 }' tests/vm/kernels)
	else
		kernels=$(awk '!/^#/ && NF && $5 != "-" { print $1 }' tests/vm/kernels)
	fi
	# One line, names apart by single spaces (awk gave one a line).
	kernels=$(echo ${CGS_VM_KERNELS:-$kernels})
	# guest K: one kernel's stage, its output into $logs/vm-K.
	guest() {
		_mode=$(awk -v n="$1" '$1 == n { print $5 }' tests/vm/kernels)
		case "$_mode" in
		all) _filter=$(echo "$VM_SHARED,$HOST_ONLY,$LOADER_ONLY" | sed 's/[^,][^,]*/!&/g') ;;
		core+shared) _filter=$VM_CORE,$VM_SHARED ;;
		*) _filter=$VM_CORE ;;
		esac
		[ -z "${CGS_VM_MATRIX:-}" ] || _filter=$(echo "$HOST_ONLY" | sed 's/[^,][^,]*/!&/g')
		CGS_VM_CPUS=${2:-${CGS_VM_CPUS:-}} CGS_VM_KERNEL=$1 tests/vm/run.sh "$_filter" >"$logs/vm-$1" 2>&1
	}
	# Two lanes, one guest each at a time (a guest is one host thread under
	# TCG: two fill the two CPUs): the first kernel alone in the first lane
	# (6.1, every test: the longest stage), the others one after another in
	# the second (CGS_VM_LANES=1: all in one lane). Each guest's output is
	# printed whole when it (second lane) or its lane (first) is done.
	first=${kernels%% *}
	rest=${kernels#"$first"}
	# make test-matrix: every test everywhere, so the lanes alternate.
	if [ -n "${CGS_VM_MATRIX:-}" ]; then
		first=$(echo $kernels | tr ' ' '\n' | awk 'NR % 2 == 1' | tr '\n' ' ')
		rest=$(echo $kernels | tr ' ' '\n' | awk 'NR % 2 == 0' | tr '\n' ' ')
	fi
	# Each lane on a CPU of its own: a guest's clock is the host's, so time
	# the host gives the other lane while a guest task runs is charged to
	# that task. Floating, a verify of test_advise_pulse_burst (7.3) ran
	# heavier than its record (7 of 151 periods throttled, CI of 88bd498):
	# two host spinners made its 60 ms pulses ask up to 75 ms; with the
	# guest on one CPU and the spinners on the other, 60.2-62.8 ms.
	cpu1=""
	cpu2=""
	if [ "$(nproc)" -ge 2 ] && [ -z "${CGS_VM_CPUS:-}" ]; then
		cpu1=0
		cpu2=1
	fi
	if [ "${CGS_VM_LANES:-2}" = 1 ] || [ -z "$rest" ]; then
		for k in $kernels; do guest "$k"; cat "$logs/vm-$k"; done
	else
		(for k in $first; do guest "$k" $cpu1; done) &
		lane1=$!
		for k in $rest; do guest "$k" $cpu2; cat "$logs/vm-$k"; done
		wait $lane1
		for k in $first; do cat "$logs/vm-$k"; done
	fi
	for k in $kernels; do
		cat "$logs/vm-$k" >>"$logs/vms"
		counted "$logs/vm-$k" vm "the QEMU stage on $k"
		vm_results="$vm_results $k"
	done
	took guests
fi

# The compatibility matrix from these runs, under .output (the tracked
# docs/kernels.md changes only by `make kernels-doc`: a test run leaves the
# checkout as it was).
./cgsched probe --json >.output/probe-host.json 2>/dev/null || true
set -- .output/probe-host.json "${host_counts:-0 0 0} ${live_secs:-0}"
for k in $vm_results; do
	[ -f ".output/vm/$k/result" ] && set -- "$@" ".output/vm/$k/probe.json" "$(cut -d' ' -f2- ".output/vm/$k/result")"
done
tests/matrix.sh .output/kernels.md "$@" || echo "could not write .output/kernels.md"

# What failed, again at the end: CI shows only the last lines of a run.
if [ "$failed" != 0 ]; then
	echo "what failed (each stage's output above has the whole log):"
	for f in "$logs"/layers "$logs"/cleanup "$logs"/fuzz "$logs"/san; do
		[ -f "$f" ] && grep -E 'FAIL|did not' "$f" | head -n 5
	done
	[ -f "$logs/recap" ] && head -n 20 "$logs/recap"
	# A failure's first 12 lines, and every process a timed-out test left.
	[ -f "$logs/live" ] && awk '/CGS-TEST FAIL/ { p = 1; n = 0; print; next }
		/CGS-TEST (PASS|SKIP)/ { p = 0 }
		p && n < 12 { print; n++; next }
		p && /^      pid [0-9]+: / { print }' "$logs/live"
	# A guest prints its failures' logs after all its results.
	[ -f "$logs/vms" ] && grep -E 'CGS-TEST FAIL|^\[vm\] |^vm: the guest|^\[vm dmesg\]|did not finish' "$logs/vms" | head -n 40
fi
echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
