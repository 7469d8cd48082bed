# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# cgsched advise: the limit that meets a throttling target, from a record of
# the workload without a limit, checked by running it (--verify), beside
# the average-based limit run the same way. Workloads with known demand
# (cgwork pulse and barrier), each recorded for 3 s (scaled): 30 periods of
# 100 ms on the host, 150 in the guests.

# advise_case NAME DEMAND_MS ONE MORE WORKLOAD...: record WORKLOAD without a
# limit, ask for the quota that throttles at most 1 % of its periods, and
# check it against DEMAND_MS, the most CPU time the workload asks for in a
# period (each workload's derivation beside its test): no less than it;
# no more than the worst period measured (at any offset of the period
# grid) by a step of the advice (1 % of the period) and its headroom; and,
# with ONE 1 (a single thread on one CPU, whose work in any 100 ms is
# DEMAND_MS at most), on the host that worst period within 6 % of it (the
# wake-ups' own cost, under a millisecond a period here: cgwork counts it
# in its work, but a period's edge can part a wake-up from the work it
# counts toward) and the longest run-queue wait (the work a
# wait moves into the next period). Then run WORKLOAD under it (--verify: met,
# exit 0), and under the average-based limit (its mean demand a period):
# with MORE 1, throttled in a tenth of its periods or more, and more than
# under the advice; with 0 (a demand as steady as its mean, where the mean
# is nearly right), its figures are only shown: in a 6.1 guest the barrier
# under its mean was throttled in 2 of 152 periods, under the advice (met,
# within chance) in 4.
advise_case() {
	_name=$1 _dem=$2 _one=$3 _more=$4
	shift 4
	"$CGSCHED" record -q --demand -o "$TMP/$_name.json" -- "$CGWORK" "$@" >"$TMP/$_name.out" 2>"$TMP/$_name.err" ||
		fail "record of $_name failed: $(cat "$TMP/$_name.err")"
	"$CGSCHED" advise "$TMP/$_name.json" --json >"$TMP/$_name.adv" || fail "advise failed"
	q=$(jq .quota.quota_us "$TMP/$_name.adv")
	h=$(jq .quota.headroom_us "$TMP/$_name.adv")
	dmax=$(jq .demand.max_us "$TMP/$_name.adv")
	echo "$_name: demand $(jq -c .demand "$TMP/$_name.adv"); advised quota $q us ($h of headroom), burst $(jq -c .burst "$TMP/$_name.adv")"
	# The workload's own account of its schedule, for reading a failure.
	echo "$_name: the recorded run's own account: $(grep -h 'cycles=' "$TMP/$_name.err" | head -n 1)"
	[ "$q" -ge $((_dem * 1000)) ] || fail "$_name: quota $q us, under the $_dem ms the workload asks for"
	[ "$q" -le $((dmax + 1000 + h)) ] || fail "$_name: quota $q us, over the worst period ($dmax us) by more than a step"
	# How sure the advice is: enough periods (3 s of 100 ms: 29 at every
	# offset), none censored (no limit, so no throttled waits), and the
	# quota's interval around it. With no period allowed throttled (the
	# host's 29), the quota covers every period alone, so no work is ever
	# deferred in the replay, and no resample can need more: its high end
	# is at most the quota.
	# (Not set --: "$@" is the workload, run again below.)
	np=$(jq .periods "$TMP/$_name.adv")
	nc=$(jq .periods_censored "$TMP/$_name.adv")
	lo=$(jq .quota.interval.low_us "$TMP/$_name.adv")
	hi=$(jq .quota.interval.high_us "$TMP/$_name.adv")
	echo "$_name: $np periods, $nc censored, the quota's interval $lo-$hi us"
	[ "$np" -ge 22 ] && [ "$nc" = 0 ] || fail "$_name: $np periods ($nc censored): under the 22 advise needs, or censored without a limit"
	[ "$lo" -le "$hi" ] && [ "$lo" -le "$q" ] || fail "$_name: the interval $lo-$hi us does not reach down to the quota $q us"
	if [ $((np / 100)) = 0 ]; then
		[ "$hi" -le "$q" ] || fail "$_name: the interval's high end $hi us over the quota $q us, where no period may be throttled"
	fi
	# The forms: a limits-file section of the advice (with the burst's where
	# one is advised), systemd's CPUQuota= and Kubernetes' millicores, each
	# the quota a period rounded up; the same in the text output.
	lim=$(jq -r '.forms.limits_file' "$TMP/$_name.adv")
	bq=$(jq -r '.burst.quota_us // empty' "$TMP/$_name.adv")
	if [ -n "$bq" ]; then
		want=$(printf '[PATH]\nmax = %s/100000\nburst = %s' "$bq" "$(jq .burst.burst_us "$TMP/$_name.adv")")
	else
		want=$(printf '[PATH]\nmax = %s/100000' "$q")
	fi
	[ "$lim" = "$want" ] || fail "$_name: the limits file's section is '$lim', not '$want'"
	sd=$(jq -r '.forms.systemd | "\(.CPUQuota) \(.CPUQuotaPeriodSec)"' "$TMP/$_name.adv")
	k8=$(jq -r '.forms.kubernetes.limits_cpu' "$TMP/$_name.adv")
	[ "$sd" = "$(((q + 999) / 1000))% null" ] && [ "$k8" = "$(((q + 99) / 100))m" ] ||
		fail "$_name: the forms for quota $q us are systemd '$sd', Kubernetes '$k8'"
	"$CGSCHED" advise "$TMP/$_name.json" >"$TMP/$_name.txt" || fail "$_name: advise (text) failed"
	grep -q "^as systemd settings: CPUQuota=$(((q + 999) / 1000))%\$" "$TMP/$_name.txt" &&
		grep -q "^as Kubernetes' resources.limits.cpu: $(((q + 99) / 100))m " "$TMP/$_name.txt" &&
		grep -q "^  max = " "$TMP/$_name.txt" || fail "$_name: the text lacks the forms: $(cat "$TMP/$_name.txt")"
	if [ "$CGS_TIME_SCALE" = 1 ] && [ "$_one" = 1 ]; then
		# And three things the 6 % does not hold. The work a run-queue wait
		# pushed over a period's edge: a cycle kept from its CPU finishes its
		# work in the next period, beside that period's own (the steady case
		# asked 32.6 ms in one period in CI of 76dc86e, a 3 ms cycle's part
		# moved): at most the longest wait. The command's start (its exec and
		# loader, 0.5-1 ms here), in whichever period it fell: cgwork's own
		# count. And what the record could not place at a step's end (a slice
		# that ended between the end and the read: demand.unsure_max_us; a
		# period asked 32.1 ms for 30 in CI of 90dd2e3 before reads were split
		# at the edge, docs/testing.md, "The advice's bounds"). And time the
		# CPU spent elsewhere
		# while the workload was its current task (interrupts, the host's
		# steal): the tracer's clock counts it as the workload's, cgwork's
		# own CPU clock (its demand) does not; cgwork prints the most wall
		# time over CPU time in 11 cycles in a row, all a window can touch
		# at the steady case's 10 ms cycle (at the pulse's 100 ms, 1.1 s:
		# looser there) (a period asked 34.6 and 35.4 ms with 4.5 and
		# 5.1 ms of it, in 2 of 120 records here; it holds waits too).
		rq=$(jq '.runq.max_ns // 0' "$TMP/$_name.json")
		st=$(sed -n 's/.*start_ns=\([0-9]*\).*/\1/p' "$TMP/$_name.out")
		ov=$(sed -n 's/^pulse: .*over_ns=\([0-9]*\).*/\1/p' "$TMP/$_name.err")
		un=$(jq '.demand.unsure_max_us' "$TMP/$_name.json")
		[ -n "$st" ] && [ -n "$ov" ] && [ "$un" != null ] ||
			fail "$_name: no start_ns ($st) or over_ns ($ov) from cgwork, or no demand.unsure_max_us ($un)"
		late=$(jq '.demand.late' "$TMP/$_name.json")
		echo "$_name: the longest run-queue wait $rq ns, the command's start $st ns, unplaced at a step's end $un us, wall over CPU $ov ns, steps lost $late"
		[ "$dmax" -le $((_dem * 1060 + rq / 1000 + st / 1000 + un + ov / 1000)) ] ||
			fail "$_name: a period asked for $dmax us, over 6 % above $_dem ms, the longest wait ($rq ns), the start ($st ns), the unplaced ($un us) and the wall over CPU ($ov ns); $late steps lost: $(jq -c .demand.used_us "$TMP/$_name.json")"
	fi
	"$CGSCHED" advise "$TMP/$_name.json" --json --verify -- "$CGWORK" "$@" >"$TMP/$_name.ver" 2>"$TMP/$_name.ver.err" ||
		fail "$_name: the advice missed its target when run: $(jq -c .verify "$TMP/$_name.ver"); its own account: $(grep -h 'cycles=' "$TMP/$_name.ver.err" | head -n 1)"
	echo "$_name: verified $(jq -c .verify "$TMP/$_name.ver")"
	[ "$(jq .verify.met "$TMP/$_name.ver")" = true ] || fail "$_name: not verified"
	m=$(jq .average.quota_us "$TMP/$_name.adv")
	"$CGSCHED" record -q --cpu-max "$m/100000" -o "$TMP/$_name.avg.json" -- "$CGWORK" "$@" >/dev/null 2>&1 ||
		fail "$_name: record under the average-based limit failed"
	set -- $(jq -r '.kernel_stat | "\(.nr_throttled) \(.nr_periods)"' "$TMP/$_name.avg.json")
	echo "$_name: the average-based limit ($m us) throttled $1 of $2 periods"
	v=$(jq .verify.throttled_periods "$TMP/$_name.ver")
	if [ "$_more" = 1 ]; then
		[ $(($1 * 10)) -ge "$2" ] && [ "$1" -gt "$v" ] ||
			fail "$_name: the average-based limit throttled $1 of $2 periods, the advice $v"
	fi
}

# Steady 30 % of a CPU: 3 ms of work every 10 ms, so 30 ms of demand in
# every 100 ms period (cgwork counts each wake-up's CPU time in the 3 ms,
# so a guest's slow wake-ups add none). Its mean is all it
# needs, give or take tens of microseconds a period: under the mean as its
# quota it was throttled in 0, 0, 20, 25, 30 of 30 periods in runs of the
# same build, so the average-based limit's figures are only shown.
test_advise_steady() {
	advise_case steady 30 1 0 pulse "$(scaled 3)" 1 10000 3000
	# The record's first window begins at the command's exec, so it holds
	# the whole start beside ten cycles, as the kernel's period that begins
	# with the command does: ten cycles of cgwork's own CPU time and its
	# start at least, less the forked child's time before it joined the
	# cgroup (0.13-0.40 ms in 7 runs here). The windows began milliseconds
	# after the exec before and held part of the start; the advice from
	# them missed when run (CI of b95ecf6: the kernel throttled the period
	# the start fell in). On the host: a guest's start may take longer than
	# the 7 ms that keeps the tenth cycle in the window.
	if [ "$CGS_TIME_SCALE" = 1 ]; then
		st=$(sed -n 's/.*start_ns=\([0-9]*\).*/\1/p' "$TMP/steady.out")
		w0=$(jq '[.demand.used_us[0:10][]] | add' "$TMP/steady.json")
		echo "steady: the first window $w0 us, the start $st ns"
		[ "$w0" -ge $((30000 + st / 1000 - 500)) ] || fail "steady: the first window holds $w0 us: not ten cycles and the start ($st ns)"
	fi
}

# 20 ms every 100 ms and 60 ms every tenth period: demand 20 ms in nine
# periods of ten, 60 in the tenth. Where a limit's period grid falls
# against the pulses is not known, and a 60 ms pulse split over two periods
# asks for less in each (the advice holds at every offset: a guest's
# record, whose command started 50 ms into the first window, saw at most
# 50 ms a period there). With a burst (where the kernel has it), a smaller
# quota whose light periods leave enough over: quota and burst together at
# least 60 ms, the burst at most the quota (the kernel's rule). The mean
# (24 ms) defers each pulse's 36 ms extra over the periods after it.
test_advise_pulse_burst() {
	advise_case pulse 60 1 1 pulse "$(scaled 3)" 1 100000 20000 10 60000
	if [ "$(jq '.kernel_stat.nr_bursts != null' "$TMP/pulse.json")" = true ]; then
		set -- $(jq -r '"\(.burst.quota_us) \(.burst.burst_us)"' "$TMP/pulse.adv")
		echo "pulse: with a burst, quota $1 us and burst $2 us"
		[ "$1" != null ] && [ "$1" -lt 60000 ] && [ $(($1 + $2)) -ge 59000 ] && [ "$2" -le "$1" ] ||
			fail "pulse: the burst's advice is off: $(jq -c .burst "$TMP/pulse.adv")"
		[ "$(jq .verify.with_burst "$TMP/pulse.ver")" = true ] || fail "pulse: --verify did not run the burst's advice"
	else
		echo "no CFS burst in this kernel: the advice has no burst"
		[ "$(jq .burst "$TMP/pulse.adv")" = null ] || fail "a burst advised where the kernel has none"
	fi
}

# A tracer kept from its CPU reads its steps late. The BPF side places each
# slice in the steps it covers (trace/demand_steps.h), so a late read changes
# no step. stall_reader.py, on CPU 0, stops record for 60 ms across the end
# of the first two 60 ms pulses and the start of the cycle after each
# (975-1035 and 1975-2035 ms after cgwork starts on CPU 1). Six step ends
# are then read up to 60 ms late. No step may hold more than one thread can
# run in it, none may be lost (demand.late 0), and the periods stay within
# advise_case's bound. A reader that put a late read's steps into one step
# would give that step 18 ms of one thread's time, and one period the pulse
# and most of the next cycle: 60 + 18 ms. Host only: a guest's start-up
# shifts the stops' offsets by more than their margin.
test_advise_reader_stalled() {
	[ "$CGS_TIME_SCALE" = 1 ] || { echo "a test for the host: a guest's start-up moves the stops"; exit 77; }
	command -v python3 >/dev/null || { echo "no python3 here: a test for the host, where make deps installs it"; exit 77; }
	"$CGSCHED" record -q --demand -o "$TMP/st.json" -- "$CGWORK" pulse 3 1 100000 20000 10 60000 \
		>"$TMP/st.out" 2>"$TMP/st.err" &
	rec=$!
	taskset -c 0 python3 "$ROOT/tests/live/stall_reader.py" "$rec" 60 975 1975 >"$TMP/stall" || { kill $rec; fail "no stall"; }
	wait_bounded $rec 20 "record"
	[ "$WAIT_RC" = 0 ] || fail "record failed: $(cat "$TMP/st.err")"
	echo "record stopped: $(tr '\n' ' ' <"$TMP/stall")"
	dmax=$("$CGSCHED" advise "$TMP/st.json" --json | jq .demand.max_us)
	rq=$(jq '.runq.max_ns // 0' "$TMP/st.json")
	st=$(sed -n 's/.*start_ns=\([0-9]*\).*/\1/p' "$TMP/st.out")
	ov=$(sed -n 's/^pulse: .*over_ns=\([0-9]*\).*/\1/p' "$TMP/st.err")
	late=$(jq .demand.late "$TMP/st.json")
	echo "stalled: the heaviest period $dmax us; the longest wait $rq ns, the start $st ns, wall over CPU $ov ns; $late steps lost"
	[ -n "$st" ] && [ -n "$ov" ] || fail "no start_ns ($st) or over_ns ($ov) from cgwork"
	# One thread on one CPU runs at most a step's 10 ms in a step. Step 0 also
	# holds the time before the exec. The steps' bounds are ktime, and the
	# slices' ends are the rq clock plus an offset sampled every 100 ms at
	# most; the two clocks drift apart by microseconds in that time: 50 us.
	most=$(jq '[.demand.used_us[1:][]] | max' "$TMP/st.json")
	[ "$most" -le 10050 ] || fail "a 10 ms step holds $most us of one thread's time"
	[ "$late" = 0 ] || fail "$late steps lost to late reads"
	[ "$dmax" -le $((60 * 1060 + rq / 1000 + st / 1000 + ov / 1000)) ] ||
		fail "a period asked for $dmax us after late reads: $(jq -c '.demand.used_us[85:105]' "$TMP/st.json")"
}

# Two threads that each work 15 ms and meet at a barrier every 50 ms: 60 ms
# of demand a period on two CPUs (the slower holds the other at the
# barrier), though each thread runs 30 % of a CPU; and a slice of
# headroom (5 ms by default) for the second CPU, which may hold part of the
# quota when the first runs out (61 ms alone missed the target when run: 3
# of 31 periods throttled). A period that begins inside a cycle holds the
# end of one cycle's work, a whole one, and the start of a third: the two
# threads spread a cycle's 30 ms over 20-30 ms unevenly, so 60-68 ms at the
# worst offset (six runs). Its demand is as steady as its mean, so the
# average-based limit is nearly right: how often it throttles depends on
# where the cycles fall in the periods (1 to 30 of 30 in six runs).
test_advise_barrier() {
	slice=$(cat /proc/sys/kernel/sched_cfs_bandwidth_slice_us 2>/dev/null || echo 5000)
	advise_case barrier 60 0 0 barrier "$(scaled 3)" 2 50000 15000
	[ "$(jq .quota.headroom_us "$TMP/barrier.adv")" = "$slice" ] || fail "barrier: no slice of headroom for its second CPU"
}

# Too few periods to advise from: a record of 1 s holds 9 whole periods of
# 100 ms at every offset, under the 22 advise needs. One line on stderr that
# says so, exit 2, nothing on stdout.
test_advise_too_few_periods() {
	"$CGSCHED" record -q --demand -o "$TMP/few.json" -- "$CGWORK" pulse 1 1 10000 3000 >/dev/null 2>"$TMP/few.rec" ||
		fail "record failed: $(cat "$TMP/few.rec")"
	"$CGSCHED" advise "$TMP/few.json" >"$TMP/few.out" 2>"$TMP/few.err"
	rc=$?
	echo "advise on $(jq '.demand.used_us | length' "$TMP/few.json") steps: exit $rc: $(cat "$TMP/few.err")"
	[ "$rc" = 2 ] || fail "exit $rc, not 2"
	[ "$(wc -l <"$TMP/few.err")" = 1 ] && grep -q 'too few to advise from (at least 22): record --demand for 2.30s or more' "$TMP/few.err" ||
		fail "not one line saying there are too few periods: $(cat "$TMP/few.err")"
	[ ! -s "$TMP/few.out" ] || fail "advice printed from too few periods: $(cat "$TMP/few.out")"
}

# Advice from records under a quota, against the advice from records
# without one (docs/design.md, "Demand"). Five workloads, each recorded for
# 3 s without a limit, under 25, 40 and 60 % of that advice, and once more
# without a limit. A is the lower of the two unlimited records' advice.
# Time the hypervisor steals from a job delays its end towards the next
# job, so a period holds more work: steal only raises a record's demand
# (docs/testing.md, "Advice from throttled records"). The lower record is
# the one steal moved least. The workloads:
#   steady   one thread, 3 ms every 10 ms (jobs queue when late);
#   pulse    20 ms every 100 ms, 60 ms every tenth (cgwork pulse);
#   barrier  two threads, 15 ms each, meeting every 50 ms;
#   fibtest  16 threads, 1.5 ms each every 100 ms;
#   poisson  four threads, 2 ms jobs at random, 25 a second each.
# Each limited record falls in one of three cases, which advise names.
#   upper_bound       tasks were held over two periods, for a period or
#                     more in all: the quota is below the workload's mean,
#                     its jobs queue for good, and its waits count as
#                     demand. The advice must not be below A. (A barrier
#                     record under 25 % of A had one task held 10.6 ms past
#                     two periods, and 56 ms of advice for an A of 71.)
#   mostly_throttled  throttled in most periods with no task held that
#                     long: the workload skips late work (pulse's and
#                     barrier's schedules skip a missed start), which no
#                     record can see, while delayed work may count early.
#                     Nothing bounds the advice either way; advise must say
#                     so. (A barrier record under 60 % of A gave 77 ms for
#                     an A of 67.)
#   neither           work a throttle delayed is placed at its task's
#                     wake-up. The advice must not be below A either.
# "Below" allows 10 % of A or the headroom advise adds for quota held on
# other CPUs, whichever is larger: the step of the advice is 1 % of the
# period, and a 3 s record sees each pulse's phase only three times. Every
# limited record must have been throttled, or it checks nothing. The advice
# from each 60 % record of the third case is run (--verify) and must meet
# its target.
test_advise_throttled_known_answers() {
	[ "$CGS_TIME_SCALE" = 1 ] || { echo "20 records of 3 s: a test for the host"; exit 77; }
	bad=0
	for w in "steady fib 3 1 1 10000 3000" "pulse pulse 3 1 100000 20000 10 60000" \
		"barrier barrier 3 2 50000 15000" "fibtest fib 3 1 16 100000 1500" "poisson poisson 3 1 4 25 2000"; do
		set -- $w
		name=$1
		shift
		"$CGSCHED" record -q --demand -o "$TMP/$name.json" -- "$CGWORK" "$@" >/dev/null 2>"$TMP/$name.err" ||
			fail "$name: record failed: $(cat "$TMP/$name.err")"
		"$CGSCHED" advise "$TMP/$name.json" --json >"$TMP/$name.adv" || fail "$name: advise failed"
		A1=$(jq .quota.quota_us "$TMP/$name.adv")
		echo "$name: no limit: advice $A1 us (demand mean $(jq .demand.mean_us "$TMP/$name.adv"), max $(jq .demand.max_us "$TMP/$name.adv"))"
		for f in 25 40 60; do
			q=$((A1 * f / 100))
			r=$TMP/$name.$f
			"$CGSCHED" record -q --demand --cpu-max "$q/100000" -o "$r.json" -- "$CGWORK" "$@" >/dev/null 2>"$r.err" ||
				fail "$name: record under $q us failed: $(cat "$r.err")"
			"$CGSCHED" advise "$r.json" --json >"$r.adv" || fail "$name: advise of the $f % record failed"
			echo "$q" >"$r.q"
		done
		"$CGSCHED" record -q --demand -o "$TMP/$name.2.json" -- "$CGWORK" "$@" >/dev/null 2>"$TMP/$name.err" ||
			fail "$name: the second record failed: $(cat "$TMP/$name.err")"
		"$CGSCHED" advise "$TMP/$name.2.json" --json >"$TMP/$name.2.adv" || fail "$name: advise failed"
		A2=$(jq .quota.quota_us "$TMP/$name.2.adv")
		a=$TMP/$name.adv
		[ "$A2" -lt "$A1" ] && a=$TMP/$name.2.adv
		A=$(jq .quota.quota_us "$a")
		h=$(jq .quota.headroom_us "$a")
		tol=$((A / 10 > h ? A / 10 : h))
		echo "$name: no limit again: advice $A2 us (demand max $(jq .demand.max_us "$TMP/$name.2.adv")); A = $A us"
		for f in 25 40 60; do
			r=$TMP/$name.$f
			q=$(cat "$r.q")
			set -- $(jq -r '"\(.quota.quota_us) \(.upper_bound) \(.mostly_throttled) \(.periods_censored) \(.periods) \(.unplaced_us)"' "$r.adv") "$@"
			adv=$1 up=$2 lo=$3
			thr=$(jq .kernel_stat.nr_throttled "$r.json")
			cpus=$(jq .demand.cpus "$r.json")
			dmax=$(jq .demand.max_us "$r.json")
			case "$up$lo" in truefalse) c=upper_bound ;; falsetrue) c=mostly_throttled ;; *) c=neither ;; esac
			echo "$name: under $f % ($q us): throttled $thr periods, censored $4 of $5, held over two periods $6 us; $c; advice $adv us ($(( (adv - A) * 100 / A )) %)"
			shift 6
			[ "$thr" -gt 0 ] || { echo "  the quota did not throttle it: the record checks nothing"; bad=1; }
			[ "$dmax" -le $((cpus * 100000)) ] || { echo "  a period asked $dmax us, over its $cpus CPUs"; bad=1; }
			if [ $c = mostly_throttled ]; then
				"$CGSCHED" advise "$r.json" | grep -q "^throttled in most periods: " ||
					{ echo "  advise's text does not say the advice is unsure"; bad=1; }
			elif [ "$adv" -lt $((A - tol)) ]; then
				echo "  advice under the advice without a limit by more than $tol us"
				bad=1
			fi
		done
		# An upper bound of a CPU a thread cannot be throttled: only the neither case can miss.
		if [ "$c" = neither ]; then
			"$CGSCHED" advise "$r.json" --json --verify -- "$CGWORK" "$@" >"$r.ver" 2>/dev/null
			echo "$name: the 60 % record's advice run: $(jq -c .verify "$r.ver")"
			[ "$(jq .verify.met "$r.ver")" = true ] || { echo "  the advice missed its target when run"; bad=1; }
		fi
	done
	[ "$bad" = 0 ] || fail "advice from a throttled record is off (above)"
}
