# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sched_ext: a BPF scheduler in charge instead of CFS (kernels with
# CONFIG_SCHED_CLASS_EXT: of the guests, 7.3).

# scx_start: load the tests' own scheduler (tests/vm/scx_min.bpf.c: no
# callbacks, every task from the global FIFO) and wait, bounded, until the
# kernel says it is enabled.
scx_start() {
	_scx=$ROOT/.output/scx_min
	[ -x "$_scx" ] || fail "no $_scx (make builds it)"
	"$_scx" 2>"$TMP/scx.err" &
	SCX_PID=$!
	CGS_BG="$CGS_BG $SCX_PID"
	deadline 10
	until file_has "$TMP/scx.err" "ready*"; do
		proc_gone "$SCX_PID" && fail "the scheduler did not load: $(cat "$TMP/scx.err")"
		past_deadline && fail "the scheduler not loaded after $(scaled 10) s: $(cat "$TMP/scx.err")"
		nap 0.1
	done
	until read -r _s </sys/kernel/sched_ext/state && [ "$_s" = enabled ]; do
		past_deadline && fail "sched_ext state $(cat /sys/kernel/sched_ext/state) after $(scaled 10) s"
		nap 0.1
	done
}

scx_stop() {
	kill "$SCX_PID" 2>/dev/null
	wait_bounded "$SCX_PID" 10 "the sched_ext scheduler"
	deadline 10
	until read -r _s </sys/kernel/sched_ext/state && [ "$_s" = disabled ]; do
		past_deadline && fail "sched_ext still $(cat /sys/kernel/sched_ext/state) after the scheduler exited"
		nap 0.1
	done
}

# With a BPF scheduler in charge the tracepoints still see every switch: a
# burner's on-CPU time matches its own CPU time (as under CFS); the banner,
# probe and the record's JSON say which scheduler is in charge and that CFS
# throttling does not apply; and cgsched's throttle figures agree with the
# kernel's cpu.stat, whatever cpu.max asked for. Then the same run after the
# scheduler is gone: CFS throttles again, and the JSON says so.
test_sched_ext() {
	[ -r /sys/kernel/sched_ext/state ] || { echo "this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT)"; exit 77; }
	[ "$(cat /sys/kernel/sched_ext/state)" = disabled ] || fail "a BPF scheduler is already loaded: $(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)"
	scx_start
	"$CGSCHED" probe --json >"$TMP/p" || fail "probe failed"
	jq -c .sched_ext "$TMP/p"
	jq -e '.sched_ext.state == "enabled" and .sched_ext.ops == "cgs_scx_min"' "$TMP/p" >/dev/null ||
		fail "probe does not name the scheduler: $(jq -c .sched_ext "$TMP/p")"
	for pass in scx cfs; do
		[ $pass = cfs ] && scx_stop
		"$CGSCHED" record --cpu-max 25% -o "$TMP/$pass.json" -- "$CGWORK" spin 1 >"$TMP/out" 2>"$TMP/err" ||
			fail "record failed: $(cat "$TMP/err")"
		grep '^cgsched: tracing' "$TMP/err"
		jq -r --arg p $pass '"\($p): sched_ext \(.sched_ext | tostring); cpu \(.cpu_pct) %; cgsched throttled \(.throttle.count) times, \(.throttle.ns) ns; kernel \(.kernel_stat.nr_throttled) times, \(.kernel_stat.throttled_ns) ns"' "$TMP/$pass.json"
		# cgsched's on-CPU time and the kernel's for the same window
		# (cpu.stat's usage on v2, cpuacct.usage on v1): 1 % apart at most
		# (the guests' rq clock and clock_task differ by emulated interrupt
		# time: 4 ms at most in a second, docs/kernels.md).
		within_plus "$(jq -r .oncpu_ns "$TMP/$pass.json")" "$(jq -r '.kernel_stat.oncpu_ns // 0' "$TMP/$pass.json")" 1 0 \
			"$pass: on-CPU ns vs the kernel's ($(jq -r .kernel_stat.oncpu_source "$TMP/$pass.json"))" || fail "$pass: on-CPU time off"
		# Throttled time against cpu.stat's, as test_throttle_matches_cpustat
		# allows it (a period's slack: the window's two ends).
		set -- $(jq -r '"\(.throttle.ns) \(.kernel_stat.throttled_ns) \(.kernel_stat.nr_throttled) \(.cpu_pct)"' "$TMP/$pass.json")
		if [ $pass = scx ]; then
			grep -q 'sched_ext: BPF scheduler cgs_scx_min enabled' "$TMP/err" || fail "the banner does not say sched_ext is in charge"
			jq -e '.sched_ext.cfs_throttling_applies == false' "$TMP/$pass.json" >/dev/null || fail "the JSON does not say CFS throttling is off"
			# The kernel's own account decides what "not throttled" is.
			[ "$3" = 0 ] || fail "cpu.stat throttled the group $3 times under sched_ext: CFS throttling applies after all"
			[ "$1" = 0 ] || fail "cgsched saw $1 ns throttled where the kernel saw none"
			awk -v c="$4" 'BEGIN { exit !(c > 80) }' || fail "the burner got $4 % under sched_ext with no throttling"
		else
			jq -e '.sched_ext.state == "disabled" and .sched_ext.cfs_throttling_applies' "$TMP/$pass.json" >/dev/null ||
				fail "after the scheduler: $(jq -c .sched_ext "$TMP/$pass.json")"
			[ "$3" -gt 0 ] || fail "CFS did not throttle a 25 % quota after the scheduler left"
			awk -v c="$4" 'BEGIN { exit !(c > 21 && c < 29) }' || fail "expected about 25 % CPU under CFS, got $4 %"
			within_plus "$1" "$2" 5 100000000 "cfs: throttled ns vs cpu.stat" || fail "throttled time off"
		fi
	done
	no_record_cgroups_left
}
