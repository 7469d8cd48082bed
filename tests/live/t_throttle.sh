# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# CFS bandwidth throttling against the kernel's cpu.stat, with every throttle
# backend this kernel allows (as `cgsched probe` finds them).

# An exiting task can be throttled once more after its parent's wait returned
# (do_exit runs on after exit_notify): let a period pass before reading counters.
settle() { nap 0.3; }

thr_backends() {
	probe_json | jq -r '.throttle_backends[] | select(.ok) | .name'
}

# throttled_run BACKEND LIMITED RUN_IN CMD...: trace LIMITED (10 ms per
# 100 ms) with the BACKEND while CMD runs in RUN_IN (LIMITED or a child);
# KD is the growth of LIMITED's cpu.stat throttled time meanwhile.
throttled_run() {
	b=$1 lim=$2 in=$3
	shift 3
	cg_quota "$lim" 10000 100000
	# -v and each thread's row (--tasks --threads): which task waited how long,
	# and what cgsched repaired or dropped, for a failure's evidence.
	cgs_start top -v --tasks --threads --throttle-backend "$b" --cgroup "$lim" --json -i 1h || fail "$b refused"
	k0=$(cg_throttled_ns "$lim")
	cg_run "$in" "$@" >/dev/null || fail "$1 failed"
	settle
	KD=$(( $(cg_throttled_ns "$lim") - k0 ))
	cgs_stop INT || fail "cgsched failed"
	# The evidence a failure needs: one late close (the tracepoint backend
	# ends an episode at the CPU's first switch after the unthrottle) or
	# all a little long. With period 100 ms, none should pass ~100 ms.
	set -- $(cgs_episodes "$lim" 100000000)
	_n=$1
	shift 2
	echo "$_n episodes of $lim, the longest (ms): $*"
	# Episodes a skipped probe run lost (or began unseen), as cgsched counts them.
	echo "$b: lost or unpaired (every drop not zero): $(jq -c 'select(.kind == "summary") | .drops | with_entries(select(.value != 0))' "$TMP/cgs.out" | tr -d '"')"
}

# runq_evidence PATH: what tells a long run-queue wait's causes apart: each
# thread's waits and longest, the row's throttled waits, the drops, and what
# cgsched said of repairs, moves and unpaired throttles.
runq_evidence() {
	echo "threads (tid comm waits max_ns): $(jq -c --arg a "$1" 'select(.kind == "summary") | [.tasks[]? | select(.path == $a) | [.tid, .comm, .runq.count, .runq.max_ns]]' "$TMP/cgs.out")"
	echo "row: runq $(cgs_summary "$1" '.runq | {count, hist}' | tr -d ' \n'), throttled waits $(cgs_summary "$1" '.throttle | {wait_count, wait_ns}' | tr -d ' \n')"
	echo "drops: $(jq -c 'select(.kind == "summary") | .drops' "$TMP/cgs.out")"
	grep -E 'did not trace|moved|held|unpaired|throttle' "$TMP/cgs.err" | head -n 10
}

# 10 ms per 100 ms, two burning threads for 5 s: throttled time within 5% of
# cpu.stat's throttled-time delta over the same window. cgwork, not
# stress-ng: at a tenth of a CPU stress-ng's own start and exit took the
# emulated guest 7 s more than its 5 (cgwork: 1 s), three times a test.
test_throttle_matches_cpustat() {
	bs=$(thr_backends)
	echo "throttle backends here: $(echo $bs)"
	[ -n "$bs" ] || fail "no throttle backend loads"
	for b in $bs; do
		cg_create "thr-$b" && A=$CG
		throttled_run "$b" "$A" "$A" "$CGWORK" burn 2 5
		got=$(cgs_summary "$A" .throttle.ns)
		n=$(cgs_summary "$A" .throttle.count)
		# Each episode is listed too (start, CPU, duration), and they add up.
		el=$(jq -r --arg p "$A" 'select(.kind == "summary") | [.episodes[] | select(.path == $p)] | "\(length) \(map(.duration_ns) | add)"' "$TMP/cgs.out")
		[ "$el" = "$n $got" ] || fail "$b: listed episodes ($el) do not add up to $n episodes, $got ns; listed per CPU: $(jq -c --arg p "$A" 'select(.kind == "summary") | [.episodes[] | select(.path == $p)] | group_by(.cpu) | map({cpu: .[0].cpu, n: length, first: (min_by(.start_ns) | {start_ns, duration_ns})})' "$TMP/cgs.out"); counted: $(cgs_summary "$A" '.throttle.per_cpu | map({cpu, count, ns})' | tr -d ' \n')"
		echo "$b: $n episodes; per CPU: $(cgs_summary "$A" '.throttle.per_cpu | map("cpu\(.cpu)=\(.count)") | join(" ")')"
		within "${got:-0}" "$KD" 5 "$b throttled ns vs cpu.stat" || fail "$b off"
		# cpu.stat has us on v2 (cgsched reads the kernel's ns): compare in us.
		kd=$(cgs_summary "$A" '.kernel_stat.throttled_ns / 1000 | floor')
		[ "$kd" = "$((KD / 1000))" ] || fail "the summary's kernel delta $kd us is not cpu.stat's $((KD / 1000)) us"
		# Throttled waits are not run-queue latency: no wait that long in the histogram.
		rmax=$(cgs_summary "$A" .runq.max_ns)
		[ "${rmax:-0}" -lt 50000000 ] || fail "$b: run-queue max ${rmax} ns holds throttled time; $(runq_evidence "$A")"
		cg_cleanup
	done
}

# A quota often runs out as one task goes to sleep with another queued
# behind it on the same CPU: the throttle comes at a voluntary switch, and the
# task left queued is held by it. Its wait is throttled time, not run-queue
# latency, and the episode is counted (per-cfs_rq model; the tracepoint
# backend sees no runnable task stop there).
test_throttle_at_sleep() {
	for b in $(thr_backends); do
		cg_create "sleep-$b" && A=$CG
		throttled_run "$b" "$A" "$A" "$CGWORK" duty 4 0 300 300
		got=$(cgs_summary "$A" .throttle.ns)
		rmax=$(cgs_summary "$A" .runq.max_ns)
		echo "$b: run-queue max ${rmax} ns; throttled $got ns, cpu.stat $KD ns"
		[ "${rmax:-0}" -lt 50000000 ] || fail "$b: run-queue max ${rmax} ns holds throttled time; $(runq_evidence "$A")"
		within "${got:-0}" "$KD" 5 "$b throttled ns vs cpu.stat" || fail "$b off"
		cg_cleanup
	done
}

# No quota: no throttle episodes, no throttled waits.
test_no_quota_no_throttle() {
	cg_create free && A=$CG
	cgs_start top --cgroup "$A" --json -i 1h || return 1
	cg_run "$A" stress-ng --cpu 2 --timeout 2 -q || fail "stress-ng failed"
	cgs_stop INT || return 1
	c=$(cgs_summary "$A" .throttle.count)
	w=$(cgs_summary "$A" .throttle.wait_ns)
	cpu=$(cgs_summary "$A" .cpu_pct)
	echo "unlimited: cpu ${cpu}%, $c episodes, ${w} ns throttled waits"
	[ "$c" = 0 ] && [ "$w" = 0 ] || fail "an unlimited cgroup was throttled"
	[ "$(cgs_summary "$A" .kernel_stat.quota_us)" = null ] || fail "quota should be null (unlimited)"
}

# A limited parent with an unlimited child: the throttling is the parent's
# quota; the child's tasks are shown held by it.
test_parent_quota_child_throttled() {
	for b in $(thr_backends); do
		cg_create "parent-$b" && P=$CG
		cg_enable_children "$P"
		cg_create child "$P" && C=$CG
		throttled_run "$b" "$P" "$C" "$CGWORK" burn 2 3
		pns=$(cgs_summary "$P" .throttle.ns)
		cn=$(cgs_summary "$C" .throttle.count)
		inh=$(cgs_summary "$C" .throttle.inherited_ns)
		from=$(cgs_summary "$C" .throttle.inherited_from.path)
		echo "$b: parent throttled ${pns} ns (cpu.stat $KD), child: $cn own episodes, ${inh} ns held by $from"
		within "${pns:-0}" "$KD" 5 "$b parent throttled ns vs cpu.stat" || fail "$b off"
		[ "$cn" = 0 ] || fail "$b: the child has no quota, but $cn episodes of its own"
		[ "$from" = "$P" ] || fail "$b: the child's throttling should be attributed to $P, not '$from'"
		[ "${inh:-0}" -gt 1000000000 ] || fail "$b: the child was held only ${inh} ns"
		cg_cleanup
	done
}

# Seed experiment (cgroup v1, 25% quota: 2 s of work took 8 s): a CPU-bound
# loop under a 25% quota runs about 4x as long, throttled about 75% of the time.
# Timed in the scheduler's clock, the spinner's own CPU time (schedstat) and
# the throttled time, not against the wall: the 6.1 guest (TSC marked
# unstable, the wall on hpet) failed twice in the project's CI, beside
# another guest, with its CPU time and throttling ~17 % ahead of the wall
# clock: "at 25%: 3.41 s (x3.46); throttled 88.4% of the wall time", on one
# CPU (3,011 ms throttled, 1 s of CPU: x4.01 and 75 % in the scheduler's
# clock). The wall is printed beside. On one CPU, as the seed's loop ran.
# The x4 from cgsched's throttled time, the 75 % from the kernel's
# (cpu.stat's throttled time, the same clock): each half fails on its own
# (from one figure the share was implied by the ratio, f = 100 (1 - 1/r)).
test_quota_25pct_runs_4x() {
	w0=$(taskset -c 1 "$CGWORK" spin 1 | kv wall_ns)
	cg_create q25 && A=$CG
	cg_quota "$A" 25000 100000
	cgs_start top --cgroup "$A" --json -i 1h || return 1
	out=$(cg_run "$A" taskset -c 1 "$CGWORK" spin 1)
	w1=$(echo "$out" | kv wall_ns)
	c1=$(echo "$out" | kv oncpu_ns)
	cgs_stop INT || return 1
	thr=$(cgs_summary "$A" .throttle.ns)
	kthr=$(cgs_summary "$A" .kernel_stat.throttled_ns)
	echo "throttled per CPU (cpu:episodes:ms): $(cgs_summary "$A" '[.throttle.per_cpu[]? | "\(.cpu):\(.count):\(.ns / 1e6 | floor)"] | join(" ")')"
	awk -v w0="$w0" -v w1="$w1" -v c="$c1" -v t="$thr" -v k="$kthr" 'BEGIN {
		r = (c + t) / c; f = 100 * k / (c + k)
		printf "on CPU %.2f s, throttled %.2f s (cpu.stat %.2f s): x%.2f, throttled %.1f%% by cpu.stat (by the wall: unconstrained %.2f s, at 25%% %.2f s, x%.2f)\n", c / 1e9, t / 1e9, k / 1e9, r, f, w0 / 1e9, w1 / 1e9, w1 / w0
		exit !(c > 0 && r > 3.2 && r < 4.8 && f > 65 && f < 85)
	}' || fail "expected about x4 and about 75% throttled"
	# The same episodes in us and in ms: each unit's slot boundaries.
	"$CGSCHED" hist --metric throttle -d 3 --cgroup "$A" >"$TMP/h" 2>"$TMP/he" &
	CGS_BG="$CGS_BG $!" # killed on exit if the test fails
	hp=$!
	"$CGSCHED" hist --metric throttle -d 3 -m --cgroup "$A" >"$TMP/hm" 2>"$TMP/hme" &
	CGS_BG="$CGS_BG $!"
	hpm=$!
	wait_line "$TMP/he" tracing
	wait_line "$TMP/hme" tracing
	cg_run "$A" taskset -c 1 "$CGWORK" spin 0.3 >/dev/null
	wait_bounded $hp 20 "hist"
	wait_bounded $hpm 20 "hist -m"
	cat "$TMP/h" "$TMP/hm"
	grep -Eq '^ +65536 -> 131071 +: [0-9]+ +\|\*+' "$TMP/h" || fail "throttle episodes of 75 ms should fill the 65-131 ms slot"
	grep -Eq '^ +64 -> 127 +: [0-9]+ +\|\*+' "$TMP/hm" || fail "with -m, episodes of 75 ms should fill the 64-127 ms slot"
}

# A forced backend the kernel refuses: one line, exit 2, never a silent fallback.
test_forced_backend_refused() {
	refused=$(probe_json | jq -r '.throttle_backends[] | select(.ok | not) | .name')
	if [ -z "$refused" ]; then
		echo "this kernel allows every throttle backend"
		exit 77
	fi
	# --backend is the option's old name, kept as an alias.
	for b in $refused; do
		for opt in --throttle-backend --backend; do
			"$CGSCHED" top $opt "$b" -n 1 >"$TMP/o" 2>"$TMP/e"
			rc=$?
			echo "$opt $b -> exit $rc: $(cat "$TMP/e")"
			[ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && [ ! -s "$TMP/o" ] || fail "$opt $b should fail with one line and exit 2"
			grep -q -- "--throttle-backend $b" "$TMP/e" || fail "the error should name --throttle-backend"
		done
	done
}

# The kernel's figures by the BPF cgroup iterator and by the cgroup files agree.
test_stat_methods_agree() {
	cg_create stat && A=$CG
	cg_quota "$A" 20000 100000
	# A burst too, so that every field the iterator copies is nonzero
	# (where the kernel has CFS burst: 5.14+).
	bf=cpu.max.burst
	[ "$CG_VER" = 1 ] && bf=cpu.cfs_burst_us
	if [ -e "$CG_ROOT$A/$bf" ]; then echo 5000 >"$CG_ROOT$A/$bf" || fail "could not set a burst"; fi
	cg_run "$A" "$CGWORK" spin 0.3 >/dev/null
	settle
	"$CGSCHED" stat --json --limited --method files >"$TMP/f" || fail "stat --method files failed"
	if ! "$CGSCHED" stat --json --limited --method iter >"$TMP/i" 2>"$TMP/e"; then
		echo "no cgroup iterator here: $(cat "$TMP/e")"
		exit 77
	fi
	q='.cgroups[] | select(.path == $p) | "\(.quota_us) \(.period_us) \(.burst_us) \(.nr_throttled) \(.throttled_ns / 1000 | floor)"'
	f=$(jq -r --arg p "$A" "$q" "$TMP/f")
	i=$(jq -r --arg p "$A" "$q" "$TMP/i")
	echo "files: $f; iter: $i"
	[ -n "$f" ] && [ "$f" = "$i" ] || fail "the two methods disagree"
	set -- $f
	[ "$1" = 20000 ] && [ "$3" = 5000 ] && [ "$4" -gt 0 ] || fail "expected quota 20000, burst 5000 and some throttled periods"
}

# The last throttle episode of each cfs_rq (thr_last, which names a long wait
# throttled rather than run-queue) goes with its cgroup: it was an LRU that
# evicted silently and was never cleaned, so a host where throttled cgroups
# come and go lost live cgroups' entries uncounted. Now: entries there while
# the cgroup lives, none once it is gone and its figures expired, and a full
# map is counted (throttle_last_full, 0 here).
test_throttle_history_forgotten() {
	command -v bpftool >/dev/null || { echo "no bpftool here: a test for the host"; exit 77; }
	cg_create thr-hist && A=$CG
	id=$(stat -c %i "$CG_ROOT$A")
	cg_quota "$A" 10000 100000
	CGSCHED_TEST_GONE_KEEP_MS=500 cgs_start top --json -i 200ms --cgroup "$A" || fail "cgsched refused"
	cg_run "$A" "$CGWORK" spin 0.1 >/dev/null || fail "spin failed"
	entries() {
		bpftool -j map dump name thr_last 2>/dev/null |
			jq --argjson id "$id" '[.[] | (.formatted // .) | select(.value.cgid == $id)] | length'
	}
	before=$(entries)
	rmdir "$CG_ROOT$A" || fail "rmdir failed"
	# Gone: its figures kept 0.5 s and two reads (200 ms apart), then its entries go.
	for i in $(seq 1 $((30 * CGS_TIME_SCALE))); do
		[ "$(entries)" = 0 ] && break
		nap 0.1
	done
	after=$(entries)
	cgs_stop INT || fail "cgsched failed"
	full=$(jq -s '[.[] | .drops.throttle_last_full // 0] | add' "$TMP/cgs.out")
	echo "thr_last entries of the throttled cgroup: $before while it lived, $after after its removal and expiry; throttle_last_full $full"
	[ "${before:-0}" -ge 1 ] || fail "no thr_last entry while it was throttled: the test shows nothing"
	[ "$after" = 0 ] || fail "$after thr_last entries left after the cgroup went"
	[ "$full" = 0 ] || fail "throttle_last_full $full"
}

# Throttling period by period (report/periods.h), on a known answer: one
# burner under 20 ms per 100 ms is throttled in every period, so in each
# whole interval of 1 s while it runs: as many throttled periods as the
# kernel counted (cpu.stat nr_throttled), give or take the one period an
# interval's edge splits (cgsched places a period by its throttle, at ~20
# ms, the kernel counts it at its end), all of them in one run, none while
# under half the quota; and its quota out 20 ms into a period, give or
# take a tick (4 ms at Debian's CONFIG_HZ=250): the overrun of the period
# before is paid from this one's quota (a tick of accounting at most), and
# a throttle is seen at the accounting after the quota is gone.
test_throttle_by_period() {
	cg_create byper && A=$CG
	cg_quota "$A" 20000 100000
	"$CGSCHED" stat --json --limited --method iter >/dev/null 2>"$TMP/e" ||
		{ echo "no cgroup iterator here (the period grid comes with it): $(cat "$TMP/e")"; exit 77; }
	cgs_start top --cgroup "$A" --json -i 1 || fail "top did not start"
	cg_run "$A" "$CGWORK" burn 1 "$(scaled 5)" 1 >/dev/null || fail "the burner failed"
	cgs_stop || fail "top"
	jq -r --arg p "$A" 'select(.kind == "interval") | .cgroups[] | select(.path == $p) |
		"\(.kernel_stat.nr_periods) \(.kernel_stat.nr_throttled) \(.throttle.periods | if . == null then "null" else "\(.throttled) \(.longest_run) \(.ran_out_p50_ns) \(.ran_out_p99_ns) \(.underused)" end)"' \
		"$TMP/cgs.out" >"$TMP/per"
	cat "$TMP/per"
	awk '
		$3 == "null" { print "an interval without its periods"; bad++; next }
		# Whole intervals: the kernel saw 10 periods, each throttled.
		$1 == 10 && $2 == 10 {
			n++
			d = $3 - $2; if (d < 0) d = -d
			if (d > 1) { printf "%d throttled periods, the kernel %d\n", $3, $2; bad++ }
			if ($4 != $3) { printf "longest run %d of %d throttled periods: a gap where there was none\n", $4, $3; bad++ }
			if ($5 < 16e6 || $5 > 24e6) { printf "its quota out %.1f ms into a period (median), not 20 +- 4\n", $5 / 1e6; bad++ }
			if ($7 != 0) { printf "%d throttled periods called bursts: it used its whole quota\n", $7; bad++ }
		}
		END {
			if (n < 2) { printf "only %d whole intervals of the burner\n", n; exit 1 }
			exit bad > 0
		}' "$TMP/per" || fail "period by period is off"
	# record, over the whole run: the same periods as the kernel's, give or
	# take the last (the burner may end inside it), all in one run.
	"$CGSCHED" record -q --demand --cpu-max 20ms/100ms -o "$TMP/rec.json" -- "$CGWORK" burn 1 "$(scaled 2)" 1 >/dev/null 2>&1 ||
		fail "record failed"
	set -- $(jq -r '"\(.kernel_stat.nr_throttled) \(.throttle.periods.throttled) \(.throttle.periods.longest_run)"' "$TMP/rec.json")
	echo "record: the kernel throttled $1 periods; cgsched $2, at most $3 in a row"
	[ "$2" -ge $(( $1 - 1 )) ] && [ "$2" -le $(( $1 + 1 )) ] && [ "$3" = "$2" ] && [ "$2" -ge 15 ] ||
		fail "record's periods: $(jq -c '.throttle.periods' "$TMP/rec.json")"
	# Its demand per period on the quota's grid (found once the quota was used): a burner asks
	# for the whole CPU, 20 ms used and the other 80 waited in each period (within a tick: 4 ms
	# of overrun paid back, and the wait's end at the next switch), so 100 ms give or take 10.
	set -- $(jq -r '.demand | "\(.aligned) \(.periods) \(.p50_us)"' "$TMP/rec.json")
	echo "record: demand on the quota's grid: $1, $2 periods, p50 $3 us"
	[ "$1" = true ] && [ "$2" -ge 10 ] && [ "$3" -ge 90000 ] && [ "$3" -le 110000 ] ||
		fail "record's demand: $(jq -c '.demand | del(.used_us, .waited_us)' "$TMP/rec.json")"
}

# top --json --demand (session/demand_top.h), nested, on a known answer: a
# burner in K, a child of P limited to 20 ms per 100 ms, asks for the whole
# CPU in every period: 20 ms used and 80 waited while P was throttled. So
# P's demand (its subtree's) is 100 ms a period; K, with no quota of its
# own, has none (null). Within one step (10 ms): a period is the steps
# whose middle falls in it (each a 10 ms read of what ran and waited), and
# a read a step late puts two steps in one period; the median and mean
# hold within it. Each 80 ms wait is added when it ends, just after the
# refill, and counts in the period it was waited in (demand_top.c, step;
# docs/testing.md, "top --demand"). A second of the burner is 10 periods,
# each counted in the interval it ends in: 9 to 11 an interval (the interval's edges move by
# the reads' jitter), and over n whole intervals 10n, give or take one.
# The first interval is never whole for the reads: it began before they
# did, so its first period is not whole (left out), and the burner starts
# inside it; the kernel may still count 10 throttled periods in it (a
# burner started before its first period's end) where cgsched has 8 (seen
# in CI: the one begun before the reads, and the one ending within a step
# of the interval's end, closed in the next). It is left out here.
test_top_demand_nested() {
	"$CGSCHED" stat --json --limited --method iter >/dev/null 2>"$TMP/e" ||
		{ echo "no cgroup iterator here (the period grid comes with it): $(cat "$TMP/e")"; exit 77; }
	cg_create dem && P=$CG
	cg_enable_children "$P"
	cg_quota "$P" 20000 100000
	cg_create kid "$P" && K=$CG
	cgs_start top --json --demand -i 1 || fail "top did not start"
	cg_run "$K" "$CGWORK" burn 1 "$(scaled 5)" 1 >/dev/null || fail "the burner failed"
	cgs_stop || fail "top"
	jq -nr --arg p "$P" '[inputs | select(.kind == "interval")] | to_entries[] | .key as $i | .value.cgroups[] | select(.path == $p) |
		"\(.kernel_stat.nr_periods) \(.kernel_stat.nr_throttled) \(.demand | if . == null then "null" else "\(.periods) \(.p50_us) \(.mean_us) \(.max_us) \(.late) \(.step_us)" end) \($i)"' \
		"$TMP/cgs.out" >"$TMP/dem"
	cat "$TMP/dem"
	kid=$(jq -r --arg k "$K" 'select(.kind == "interval") | .cgroups[] | select(.path == $k) | .demand' "$TMP/cgs.out" | sort -u)
	echo "$K (no quota of its own): demand $kid"
	[ "$kid" = null ] || fail "a cgroup without a quota has a demand: $kid"
	awk '
		$3 == "null" || $NF == 0 { next }
		$1 == 10 && $2 == 10 {
			n++
			if ($3 < 9 || $3 > 11) { printf "%d whole periods in a second of them\n", $3; bad++ }
			sum += $3
			if ($4 < 90000 || $4 > 110000) { printf "demand p50 %d us, not 100 ms +- 10\n", $4; bad++ }
			if ($5 < 90000 || $5 > 110000) { printf "demand mean %d us, not 100 ms +- 10\n", $5; bad++ }
			if ($8 != 10000) { printf "steps of %d us, a tenth of the period is 10000\n", $8; bad++ }
		}
		END {
			if (n < 2) { printf "only %d whole intervals of the burner with its demand\n", n; exit 1 }
			if (sum < 10 * n - 1 || sum > 10 * n + 1) { printf "%d periods in %d whole intervals of 10\n", sum, n; bad++ }
			exit bad > 0
		}' "$TMP/dem" || fail "top --demand is off"
}

# A quota under a tick (report/periods.c span), on a known answer: a burner
# under 1 ms per 100 ms runs on until a tick (4 ms at Debian's HZ=250) sees
# its quota gone, so it owes up to 3 ms and stays throttled through refills
# until they pay it back: episodes of 2-4 periods. cpu.stat counts every
# refill that found it throttled, and so must cgsched (counting the period
# an episode began in, it had 84 where the kernel had 200 at 1 ms per 10
# ms). Give or take one: the burner pins itself after its start, so a
# moment of it on another CPU may hand runtime back there (a period ended
# inside, which the kernel does not count); and the kernel counts a
# throttle that begins after a period's end but before that end's refill
# has run in the period before (cgsched cannot see the refill), which a
# refill's lateness makes rare: at 10 ms periods the TCG guests (~0.3 ms
# late) counted 1-4 fewer of ~1,040 periods, one of them traced to a
# throttle 0.36 ms after a period's end; at 100 ms, a tenth as often a
# period, over a tenth of the periods. And an episode open at the end: in
# the 6.1 guest the burner's last tick left a deficit that throttled its
# cfs_rq as it exited (6.1 throttles run queues, not tasks), and the
# kernel counted the refills after it up to record's last read of cpu.stat
# (~0.1 s after the exit there): cpu.stat had one more in each of 4 runs
# until record counted the episodes still open at its end, up to that read
# (docs/testing.md, "Whole periods"). The report says how many were
# (open_at_end).
test_throttle_periods_held_over() {
	"$CGSCHED" stat --json --limited --method iter >/dev/null 2>"$TMP/e" ||
		{ echo "no cgroup iterator here (the period grid comes with it): $(cat "$TMP/e")"; exit 77; }
	"$CGSCHED" record -q --cpu-max 1ms/100ms -o "$TMP/h.json" -- "$CGWORK" burn 1 "$(scaled 2)" 1 \
		>/dev/null 2>"$TMP/h.err" || fail "record failed: $(cat "$TMP/h.err")"
	set -- $(jq -r '"\(.kernel_stat.nr_throttled) \(.throttle.periods | "\(.throttled) \(.longest_run)") \(.throttle.count) \([.episodes[] | select(.duration_ns > 100000000)] | length) \(.throttle.open_at_end)"' "$TMP/h.json")
	echo "cpu.stat $1 throttled periods; cgsched $2, at most $3 in a row; $4 episodes, $5 of them longer than a period; $6 open at the end"
	[ "$5" -ge 1 ] || fail "no episode outlived its period: the case is not here ($(jq -c '[.episodes[].duration_ns]' "$TMP/h.json"))"
	[ "$2" -ge $(($1 - 1)) ] && [ "$2" -le $(($1 + 1)) ] || fail "cgsched's throttled periods ($2) are not cpu.stat's ($1)"
	[ "$2" -gt "$4" ] || fail "$2 throttled periods from $4 episodes, $5 of them longer than a period"
}

# The burst symptom, and CFS burst beside it (report/periods.h; known
# answers): a pulse of 10 ms of work every 100 ms and 80 ms every tenth
# period, under 40 ms per 100 ms, averages 17 % of a CPU, under half its
# quota (20 %), yet each 80 ms pulse outruns the quota in one period or two
# or three in a row (split over the period grid): every throttled period is
# the burst symptom, as many as cpu.stat counts. With a burst allowance of
# 40 ms the unused quota of the light periods carries over (up to 40 ms)
# and covers each pulse: cpu.stat counts bursts, and fewer throttled
# periods than without.
test_throttle_bursts_by_period() {
	"$CGSCHED" stat --json --limited --method iter >/dev/null 2>"$TMP/e" ||
		{ echo "no cgroup iterator here (the period grid comes with it): $(cat "$TMP/e")"; exit 77; }
	s=$(scaled 3)
	"$CGSCHED" record -q --cpu-max 40ms/100ms -o "$TMP/r1.json" -- "$CGWORK" pulse "$s" 1 100000 10000 10 80000 \
		>/dev/null 2>"$TMP/r1.err" || fail "record failed: $(cat "$TMP/r1.err")"
	set -- $(jq -r '"\(.kernel_stat.nr_throttled) \(.throttle.periods | "\(.throttled) \(.longest_run) \(.underused)") \(.cpu_pct)"' "$TMP/r1.json")
	echo "no burst allowance: cpu.stat $1 throttled periods; cgsched $2, at most $3 in a row, $4 under half the quota; $5 % of a CPU"
	# Each episode (start and length in ms from the fork, CPU): what a failure needs read.
	jq -r '"episodes: \([.episodes[] | "\(.start_ns / 1e4 | floor / 100)+\(.duration_ns / 1e4 | floor / 100)@\(.cpu)"] | join(" "))"' "$TMP/r1.json"
	[ "$1" -ge 2 ] || fail "the pulses were throttled in $1 periods: expected one or more each"
	# cpu.stat counts a period at its end (the refill) if throttled then, and
	# so does cgsched, from each episode's start and end on the grid: the
	# same periods, give or take one unthrottled inside its period (runtime
	# handed back by another CPU), which cgsched counts where it began. An
	# episode held over a refill counts in both periods on both sides (the
	# project's CI of ef70bd0, 6.1 guest: 23 against 21 when cgsched counted
	# the periods episodes began in; with the guest's vCPU held off 70 ms by
	# the host, 116 ms episodes, two periods each in cpu.stat).
	[ "$2" -ge $(($1 - 1)) ] && [ "$2" -le $(($1 + 1)) ] || fail "cgsched's throttled periods ($2) are not cpu.stat's ($1)"
	[ "$3" -ge 1 ] && [ "$3" -le 3 ] || fail "a run of $3: an 80 ms pulse over a 40 ms quota spans 1-3 periods"
	[ "$4" = "$2" ] || fail "$4 of $2 throttled periods called the burst symptom, averaging $5 % against a quota of 40 %"
	bf=cpu.max.burst
	[ "$CG_VER" = 1 ] && bf=cpu.cfs_burst_us
	cg_create burstprobe || fail "could not make a cgroup"
	[ -e "$CG_ROOT$CG/$bf" ] || { echo "no CFS burst in this kernel ($bf): the rest is for 5.14+"; return 0; }
	"$CGSCHED" record -q --cpu-max 40ms/100ms --cpu-burst 40ms -o "$TMP/r2.json" -- "$CGWORK" pulse "$s" 1 100000 10000 10 80000 \
		>/dev/null 2>"$TMP/r2.err" || fail "record --cpu-burst failed: $(cat "$TMP/r2.err")"
	set -- "$1" $(jq -r '"\(.kernel_stat.nr_throttled) \(.throttle.periods.throttled) \(.kernel_stat.nr_bursts) \(.kernel_stat.burst_ns)"' "$TMP/r2.json")
	echo "with 40 ms of burst: cpu.stat $2 throttled periods (cgsched $3), $4 burst periods, $(( $5 / 1000000 )) ms on the burst"
	jq -r '"episodes: \([.episodes[] | "\(.start_ns / 1e4 | floor / 100)+\(.duration_ns / 1e4 | floor / 100)@\(.cpu)"] | join(" "))"' "$TMP/r2.json"
	[ "$4" -ge 2 ] && [ "$5" -gt 0 ] || fail "no bursts counted beside the periods: $(jq -c .kernel_stat "$TMP/r2.json")"
	[ "$3" -ge $(($2 - 1)) ] && [ "$3" -le $(($2 + 1)) ] || fail "cgsched's throttled periods ($3) are not cpu.stat's ($2)"
	[ "$2" -lt "$1" ] || fail "the burst allowance did not cut the throttled periods ($2, without it $1)"
}
