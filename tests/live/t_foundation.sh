# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Foundation: on-CPU time and run-queue latency against the kernel's own
# account, preemption attribution, cgroup churn, bad input, clean detach.

# The scheduler backends this kernel accepts, by the probe (test_backend_pairs_load
# checks that a refused one is refused for the reason the probe gives).
sched_backends() {
	probe_json | jq -r '.sched_backends[] | select(.ok) | .name'
}

# Every pair of scheduler and throttle backends that the probe finds loads
# and attaches (each pair is a different program to the verifier: dead code
# differs), and with BTF the tp_btf backends are among them: a verifier
# rejection there is a bug, never a reason to fall back quietly.
test_backend_pairs_load() {
	"$CGSCHED" probe --json >"$TMP/p" || fail "probe failed"
	btf=$(jq -r .btf "$TMP/p")
	ok=$(jq -r '.sched_backends[] | select(.ok) | .name' "$TMP/p")
	echo "BTF: $btf; scheduler backends: $(echo $ok); refused: $(jq -c '[.sched_backends[] | select(.ok | not)]' "$TMP/p")"
	# raw_tp needs nothing beyond raw tracepoints (4.17), tp_btf-pidhash BTF.
	echo "$ok" | grep -qx raw_tp || fail "raw_tp was refused"
	if [ "$btf" = true ]; then
		echo "$ok" | grep -qx tp_btf-pidhash || fail "BTF is there, yet tp_btf-pidhash was refused"
		# tp_btf also needs task storage maps (5.11): refused only where
		# bpftool, asked separately, finds none, and then saying so.
		if ! echo "$ok" | grep -qx tp_btf; then
			why=$(jq -r '.sched_backends[] | select(.name == "tp_btf") | .error' "$TMP/p")
			bpftool feature probe kernel 2>/dev/null | grep -q "map_type task_storage is NOT available" ||
				fail "tp_btf refused ($why), yet bpftool finds task storage maps"
			case $why in *"task storage"*) ;; *) fail "tp_btf refused without the reason: $why" ;; esac
			echo "tp_btf refused, as the kernel has no task storage maps: $why"
		fi
	fi
	# A kernel without the any-context allocator (before 6.1) gets
	# preallocated maps: no verifier WARNING for run-time allocation.
	echo "maps preallocated: $(jq -r .maps_preallocated "$TMP/p")"
	for s in $ok; do
		for t in $(jq -r '.throttle_backends[] | select(.ok) | .name' "$TMP/p"); do
			"$CGSCHED" top -q --sched-backend "$s" --throttle-backend "$t" -n 1 -i 100ms >/dev/null 2>"$TMP/e" ||
				fail "$s with $t: $(cat "$TMP/e")"
			echo "$s + $t: loaded and attached"
		done
	done
}

# On-CPU time of a cgroup within 2% of its tasks' /proc/<tid>/schedstat,
# with every scheduler backend this kernel allows. Both count the kernel's
# task clock: cgsched takes off each slice what the rq clock counted that
# was not the task's (time the hypervisor stole, IRQ time: sched_stolen in
# compat.bpf.h). Timed by rq->clock alone, a run on a VM whose host stole
# time read 3.9% over.
test_oncpu_matches_schedstat() {
	for b in $(sched_backends); do
		cg_create "oncpu-$b" && A=$CG
		cgs_start top --sched-backend "$b" --cgroup "$A" --json -i 1h || fail "$b refused"
		out=$(burn_in "$A" 2 2 -1) || fail "burn failed"
		cgs_stop INT || fail "cgsched failed"
		got=$(cgs_summary "$A" .oncpu_ns)
		[ -n "$got" ] || fail "$b: no summary row for $A: $(cat "$TMP/cgs.out")"
		within "$got" "$(echo "$out" | kv oncpu_ns)" 2 "$b on-CPU ns" ||
			fail "$b off; drops: $(jq -c 'select(.kind == "summary") | .drops' "$TMP/cgs.out")"
	done
}

# Run-queue wait of an unlimited cgroup equal to schedstat's run delay:
# three busy threads share one CPU, so each waits about 2/3 of the time.
# Exact with every backend, host and guest alike: the same rq->clock values
# at the same events, one CPU, and burn_in's exact window (measured 0 ns).
# raw_tp once timed with bpf_ktime_get_ns() and was 20-60 us short over
# ~500 waits here, 0.15-9.6 ms in the emulated guests: a switch right after
# a wake-up preempts keeps the wake-up's rq clock (the kernel skips that
# update), and ktime ran on by the wake-up-to-switch latency (docs/design.md).
#
# For a failure's evidence: each thread's waits as cgsched counted them
# (--tasks --threads), beside cgwork's schedstat of each at both ends, and
# cgsched's repairs of switches the kernel did not trace (-v). The 7.3
# guest once counted one wait more than the kernel, 677 us, with
# tp_btf-pidhash (CI at 57cd198; 50 runs alone after it: none).
test_runq_matches_rundelay() {
	for b in $(sched_backends); do
		cg_create "runq-$b" && A=$CG
		cgs_start top -v --tasks --threads --sched-backend "$b" --cgroup "$A" --json -i 1h || fail "$b refused"
		# CGWORK_DEBUG: each thread's schedstat at both ends, and how the
		# workload was found asleep, for a failure's evidence.
		out=$(CGWORK_DEBUG=1 burn_in "$A" 3 2 0 2>"$TMP/cgwork.err") || fail "burn failed: $(cat "$TMP/cgwork.err")"
		cgs_stop INT || fail "cgsched failed"
		got=$(cgs_summary "$A" .runq.sum_ns)
		[ -n "$got" ] || fail "$b: no summary row for $A"
		n=$(cgs_summary "$A" .runq.count)
		k=$(echo "$out" | kv rundelay_ns)
		echo "$b run-queue wait ns: measured $got, kernel $k; $n waits, kernel $(echo "$out" | kv slices); $((got > k ? got - k : k - got)) ns apart (limit 0)"
		# Repairs, passing or not: how often the guests see them is evidence for the one failure.
		rep=$(grep -E 'did not trace|moves of tasks|moved away|preempted before they blocked' "$TMP/cgs.err")
		[ -z "$rep" ] || echo "$rep" | sed "s/^/$b: /"
		[ "$got" = "$k" ] ||
			fail "$b off; drops: $(jq -c 'select(.kind == "summary") | .drops' "$TMP/cgs.out"); waits: $(cgs_summary "$A" .runq.count); cgwork: $(tr '\n' ';' <"$TMP/cgwork.err"); cgsched's threads: $(jq -c --arg a "$A" 'select(.kind == "summary") | [.tasks[]? | select(.path == $a) | [.tid, .runq.count, .runq.sum_ns]]' "$TMP/cgs.out"); $(echo "$rep" | tr '\n' ';')"
		[ "$n" -gt 100 ] || fail "$b: only $n run-queue waits"
	done
}

# Two cgroups on one CPU: one burns while the other wakes every 1 ms, then
# the roles swap (cgwork duel). Both wake, switch and wait in the run queue,
# and each is named as the other's preemptor. A waking sleeper preempts a
# burner under CFS (6.1) and EEVDF (6.6+) alike.
test_duel_preemptors() {
	cg_create duel-a && A=$CG
	cg_create duel-b && B=$CG
	cgs_start top --cgroup "$A" --cgroup "$B" --json -i 1h || return 1
	"$CGWORK" duel 3 0 "$(cg_procs "$A")" "$(cg_procs "$B")" >/dev/null || fail "duel failed"
	cgs_stop INT || return 1
	for c in "$A" "$B"; do
		w=$(cgs_summary "$c" .wakeups)
		v=$(cgs_summary "$c" .switches.voluntary)
		i=$(cgs_summary "$c" .switches.involuntary)
		h=$(cgs_summary "$c" '.runq.hist | add')
		echo "$c: wakeups=$w vol=$v invol=$i hist_total=$h"
		[ "${w:-0}" -ge 100 ] || fail "$c: $w wake-ups, expected >= 100"
		[ "${v:-0}" -ge 100 ] || fail "$c: $v voluntary switches, expected >= 100"
		[ "${h:-0}" -ge 100 ] || fail "$c: runq histogram holds $h, expected >= 100"
	done
	ab=$(cgs_summary "$A" ".preempted_by[] | select(.path == \"$B\") | .count")
	ba=$(cgs_summary "$B" ".preempted_by[] | select(.path == \"$A\") | .count")
	echo "$B preempted $A ${ab:-0} times, $A preempted $B ${ba:-0} times"
	[ "${ab:-0}" -ge 50 ] && [ "${ba:-0}" -ge 50 ] || fail "each should preempt the other at least 50 times"
	# A preemption is an involuntary switch of the victim.
	ia=$(cgs_summary "$A" .switches.involuntary)
	[ "$ab" -le "$ia" ] || fail "$A: $ab preemptions but only $ia involuntary switches"
}

# A cgroup made and removed while tracing: output stays valid JSON, and the
# cgroup is shown as removed, by the path it had, not as garbage.
test_cgroup_created_and_removed() {
	cgs_start top --json -i 200ms -r 0 || return 1
	cg_create churn && C=$CG
	id=$(stat -c %i "$CG_ROOT$C")
	cg_run "$C" "$CGWORK" burn 1 1 >/dev/null || fail "burn failed"
	rmdir "$CG_ROOT$C" || fail "rmdir failed"
	nap 0.5
	cgs_stop INT || return 1
	jq -e . "$TMP/cgs.out" >/dev/null || fail "output is not JSON lines"
	live=$(jq -r --argjson id "$id" 'select(.kind == "interval") | .cgroups[] | select(.id == $id) | "\(.path) \(.removed)"' "$TMP/cgs.out" | head -n 1)
	echo "while alive: $live"
	[ "$live" = "$C false" ] || fail "expected '$C false' while it ran"
	gone=$(jq -r --argjson id "$id" 'select(.kind == "summary") | .cgroups[] | select(.id == $id) | "\(.path) \(.removed)"' "$TMP/cgs.out")
	echo "after removal: $gone"
	[ "$gone" = "$C true" ] || fail "expected '$C true' in the summary"
}

# Bad input: one line on stderr, exit 2.
test_bad_arguments() {
	bad=0
	while IFS='|' read -r args; do
		# shellcheck disable=SC2086
		"$CGSCHED" $args >"$TMP/o" 2>"$TMP/e"
		rc=$?
		lines=$(wc -l <"$TMP/e")
		echo "cgsched $args -> exit $rc: $(cat "$TMP/e")"
		if [ $rc != 2 ] || [ "$lines" != 1 ] || [ -s "$TMP/o" ]; then
			bad=$((bad + 1))
		fi
	done <<'ARGS'
--bogus
frobnicate
top -i abc
top -i 0
top -i 5parsecs
top -n 0
top -n -3
top -s nope
top -r x
top extra
top --cgroup /cgs-no-such-group
top --cgroup ../../etc
top --max-cgroups 5
hist -d -1
hist -d 1x
hist --per-cpu=3
top --sched-backend nope
top -i
hist --metric
top --cgroup
check
apply a b
enforce
probe extra
stat --method
ARGS
	[ $bad = 0 ] || fail "$bad invocations did not give one line and exit 2"
	"$CGWORK" asuser 65534 "$CGSCHED" top -n 1 >"$TMP/o" 2>"$TMP/e"
	rc=$?
	echo "as nobody -> exit $rc: $(cat "$TMP/e")"
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] || fail "not root should exit 2 with one line"
}

# Every command's --help: printed as it is, not through printf (no doubled
# %), at most 80 columns, ending with EXAMPLES. Each command's page,
# docs/commands/NAME.md, holds that --help verbatim as its options
# (dist/man/mkpages.sh writes it); the man page is made of it too. The
# guests carry no docs: there the pages are not checked.
# $TMP/h, the --help of $1, ends with EXAMPLES: below it only indented
# lines, an example or more.
help_examples_last() {
	grep -qx EXAMPLES "$TMP/h" || fail "$1 --help has no EXAMPLES section"
	sed '1,/^EXAMPLES$/d' "$TMP/h" >"$TMP/ex"
	grep -q '^  cgsched ' "$TMP/ex" || fail "$1 --help: no example under EXAMPLES"
	! grep -v '^  ' "$TMP/ex" || fail "$1 --help: EXAMPLES is not its last section"
}

test_help_texts() {
	"$CGSCHED" --help >"$TMP/h" || fail "cgsched --help failed"
	awk 'length > 80 { print "cgsched --help: " length " columns: " $0; bad = 1 } END { exit bad }' \
		"$TMP/h" || fail "cgsched --help is wider than 80 columns"
	help_examples_last cgsched
	for c in $("$CGSCHED" --list-commands); do
		"$CGSCHED" $c --help >"$TMP/h" 2>&1 || fail "$c --help failed"
		! grep -n '%%' "$TMP/h" || fail "$c --help prints a doubled percent sign"
		awk -v c=$c 'length > 80 { print c ": " length " columns: " $0; bad = 1 } END { exit bad }' \
			"$TMP/h" || fail "$c --help is wider than 80 columns"
		help_examples_last $c
	done
	if [ -d "$ROOT/docs/commands" ]; then
		sh "$ROOT/dist/man/mkpages.sh" "$CGSCHED" --check "$ROOT/docs/commands" ||
			fail "a page of docs/commands is out of date: run dist/man/mkpages.sh $CGSCHED"
		echo "each command's page holds its --help"
	fi
}

# SIGTERM: a summary, exit 0, and no BPF program or link left behind.
test_sigterm_detaches() {
	cgs_start top -i 1h || return 1
	pid=$CGS_PID
	n=$(ls -l /proc/$pid/fd | grep -c 'bpf')
	echo "cgsched holds $n BPF file descriptors while tracing"
	[ "$n" -gt 0 ] || fail "no BPF objects held while tracing"
	cgs_stop TERM || return 1
	grep -q "Summary over" "$TMP/cgs.out" || fail "no summary after SIGTERM"
	if command -v bpftool >/dev/null; then
		# The kernel frees programs asynchronously (RCU) once the last fd closes.
		for i in $(seq 1 30); do
			left=$(bpftool prog show 2>/dev/null | grep -c -E 'name (btf|raw)_(switch|wakeup)')
			[ "$left" = 0 ] && break
			nap 0.1
		done
		[ "$left" = 0 ] || fail "$left cgsched programs still loaded 3 s after exit"
	fi
	[ -z "$(ls /sys/fs/bpf 2>/dev/null)" ] || fail "something pinned in /sys/fs/bpf"
}

# hist: runqlat's layout, one histogram per cgroup headed by its path.
test_hist_layout() {
	cg_create hist && A=$CG
	# Long enough for two start-ups in the slow guest too (killed below).
	cg_spawn "$A" "$CGWORK" burn 2 "$(scaled 8)" 0 >/dev/null
	bpid=$SPAWNED
	"$CGSCHED" hist -d 1 --cgroup "$A" >"$TMP/h" 2>"$TMP/e" || fail "hist failed: $(cat "$TMP/e")"
	"$CGSCHED" hist -d 1 --cgroup "$A" --per-cpu -m >"$TMP/hc" 2>"$TMP/e" || fail "hist --per-cpu failed"
	kill $bpid 2>/dev/null
	wait_bounded $bpid 10 "the burner after SIGTERM"
	cat "$TMP/h" "$TMP/hc"
	grep -qx "cgroup = $A" "$TMP/h" || fail "no 'cgroup = $A' heading"
	grep -q '^     usecs               : count    distribution$' "$TMP/h" || fail "no runqlat header"
	grep -Eq '^ +[0-9]+ -> [0-9]+ +: [0-9]+ +\|\*+ *\|$' "$TMP/h" || fail "no runqlat rows"
	grep -qx "cgroup = $A, cpu = 0" "$TMP/hc" || fail "no per-CPU heading"
	grep -q '^     msecs ' "$TMP/hc" || fail "-m should print msecs"
}

# A task that moves itself into a cgroup and runs on (a shell that writes
# its pid and execs the workload; systemd-run --scope): no switch marks the
# move (sched_move_task), and a burner alone on its CPU may not switch for
# hundreds of ms (every 250 ms here). The kernel charges the old group up
# to the move and the new one from there; so must cgsched (sched.bpf.c
# cg_attach), where it credited the whole running slice to one of them.
# Both sides against the kernel's account of the task (its thread CPU
# clock, read by cgwork at each move): 2 % + 4 ms, the slots test's bound,
# which also holds the exit's tail (the slice ends at the exit, after
# cgwork's read).
test_move_while_running() {
	cg_create move-from && S=$CG
	cg_create move-to && A=$CG
	cgs_start top --cgroup "$S" --cgroup "$A" --json -i 200ms || return 1
	out=$("$CGWORK" selfmove "$(cg_procs "$S")" "$(cg_procs "$A")" "$(scaled 1)" 1) || fail "selfmove failed"
	cgs_stop INT || return 1
	for side in "$S from_ns left" "$A to_ns"; do
		set -- $side
		move_side_agrees "$1" "$(echo "$out" | kv "$2")" "$(scaled 4000000)" "${3:-}"
	done
}

# move_side_agrees PATH KERNEL_NS SLACK_NS [left]: PATH's on-CPU time in
# the summary within 2 % + SLACK_NS of the kernel's; for the cgroup the task
# left, summed over the intervals too: a slice credited to it while it ran
# on elsewhere is taken back from no interval (cgs_intervals). (The
# intervals of the one it went to end before the summary's last read.)
move_side_agrees() {
	got=$(cgs_summary "$1" .oncpu_ns)
	within_plus "${got:-0}" "$2" 2 "$3" "$1 on-CPU ns, summary" || {
		move_side_story "$1"
		fail "$1: cgsched ${got:-0} ns in the summary, the task's CPU clock $2 ns there"
	}
	[ "${4:-}" = left ] || return 0
	got=$(cgs_intervals "$1" .oncpu_ns)
	within_plus "$got" "$2" 2 "$3" "$1 on-CPU ns, the intervals' sum" && return 0
	move_side_story "$1"
	fail "$1: cgsched $got ns over the intervals, the task's CPU clock $2 ns there"
}

# move_side_story PATH: where a side went wrong: each interval's length and
# PATH's figure in it, each read's credit of CPU 1's running slice (the
# movers run there; one line a read, in the intervals' order), the move
# counts, and the summary's drops.
move_side_story() {
	jq -r --arg p "$1" 'select(.kind == "interval") | "\(.interval_ns / 1e6 | floor)ms:\([.cgroups[] | select(.path == $p) | .oncpu_ns] | add // 0)"' "$TMP/cgs.out" | tr '\n' ' '
	echo
	grep -a 'cpu 1: running slice\|move' "$TMP/cgs.err"
	jq -c 'select(.kind == "summary") | .drops' "$TMP/cgs.out"
}

# A task moved by another process while it runs (echo PID > cgroup.procs
# on a busy service): the mover's CPU cannot split the other CPU's slice.
# cgsched has that CPU's program split it at the move, found in what the
# move left in the task (sched.bpf.c move_time), at the task's next switch
# or before the next read (seed_cpu), so the new cgroup is seen while the
# task runs on, and each side agrees with the task's CPU clock on either
# side of the move (cgwork polls its cgroups every ms: + 1 ms; else as
# above). No move may go untimed (drops.move_untimed): the task is fair.
test_moved_by_another_while_running() {
	moved_by_another "" 200ms 1
}

# The same for a thread that is not its process's leader, moved with its
# process: the mover's mark names the leader (one tracepoint a process),
# and before move_time the running thread's slice was split at the next
# read, up to an interval late; at 1 s a read, the side it left would be
# ~0.5 s over, 5-20 times the bound. (2 s after the move: two reads.)
test_thread_moved_by_another_while_running() {
	moved_by_another thread 1s 2
}

# moved_by_another [thread] INTERVAL SECONDS_AFTER: the move a second into
# the run; looked for SECONDS_AFTER later, while the task still runs.
moved_by_another() {
	cg_create mv-from && S=$CG
	cg_create mv-to && A=$CG
	cgs_start top -v --cgroup "$S" --cgroup "$A" --json -i "$2" || return 1
	"$CGWORK" watchmove "$(cg_procs "$S")" "$(scaled $(($3 + 2)))" 1 $1 >"$TMP/wm" &
	wpid=$!
	for _ in $(seq 1 "$(scaled 100)"); do grep -qx "$wpid" "$CG_ROOT$S/cgroup.procs" && break; nap 0.01; done
	grep -qx "$wpid" "$CG_ROOT$S/cgroup.procs" || fail "watchmove did not enter $S"
	sleep "$(scaled 1)"
	echo "$wpid" >"$CG_ROOT$A/cgroup.procs" || fail "cannot move $wpid into $A"
	sleep "$(scaled "$3")"
	proc_gone "$wpid" && fail "the task ended before it was looked for: the test shows nothing"
	seen=$(jq -s --arg a "$A" '[.[] | select(.kind == "interval") | .cgroups[] | select(.path == $a) | .oncpu_ns] | add // 0' "$TMP/cgs.out")
	echo "$A while the task still runs, $3 s after the move: ${seen} ns on CPU"
	# Seen at all: how much is the sums' business below (the guest's vCPU may lose the host CPU).
	[ "$seen" -gt 0 ] || fail "$A not seen while the moved task runs"
	wait_bounded "$wpid" 10 "watchmove"
	wait "$wpid" || fail "watchmove failed"
	cgs_stop INT || return 1
	for side in "$S before_ns left" "$A after_ns"; do
		set -- $side
		move_side_agrees "$1" "$(kv "$2" <"$TMP/wm")" "$(scaled 5000000)" "${3:-}"
	done
	untimed=$(jq -r 'select(.kind == "summary") | .drops.move_untimed' "$TMP/cgs.out")
	echo "moves whose time was not found: $untimed"
	[ "$untimed" = 0 ] || fail "a fair task's move went untimed"
}

# The map bound: more active cgroups than --max-cgroups allows are not lost
# silently: the drop is counted and shown, in JSON and in the table.
test_max_cgroups_bound() {
	# 24 busy test cgroups first, each with its waker in place, then trace.
	# The wakers outlive both runs (cg_cleanup ends them): in the slow guest
	# 10 s ran out before the second run started.
	for i in $(seq 1 24); do
		cg_create "many$i" && cg_spawn "$CG" "$CGWORK" wake 120 2000 >/dev/null
	done
	for i in $(seq 1 24); do
		for k in $(seq 1 100); do
			[ -n "$(cat "$(cg_procs "/cgs-test-$CGS_RUN-many$i")")" ] && break
			nap 0.1
		done
	done
	cgs_start top --json -i 1h --max-cgroups 16 || return 1
	sleep 2
	cgs_stop INT || return 1
	full=$(jq -r 'select(.kind == "summary") | .drops.cgroup_map_full' "$TMP/cgs.out")
	rows=$(jq -r 'select(.kind == "summary") | .cgroups | length' "$TMP/cgs.out")
	echo "--max-cgroups 16 with 24 busy test cgroups: $rows rows, cgroup_map_full=$full"
	[ "$rows" -le 16 ] || fail "more rows than the bound"
	[ "${full:-0}" -gt 0 ] || fail "hitting the bound was not counted"
	"$CGSCHED" top -i 1 -n 1 --max-cgroups 16 >"$TMP/t" 2>/dev/null || fail "top failed"
	grep 'drops:' "$TMP/t"
	grep -q 'drops:.*cgroup_map_full=' "$TMP/t" || fail "the table does not show the drop"
}

# A task's cgroup is cached by its task_group's address, and a cgroup made
# later can be given a removed one's address (kmalloc reuses it). A task
# moved A -> C while stopped, A removed, B made, the task moved into B: when
# B's task_group sits where A's was, the cache once kept charging it to A.
# Now every cpu cgroup's removal has the caches looked at again (tg_gen).
# With the pid-hash backend, whose task map bpftool can dump: up to 20 tries,
# each must charge the task to B; a try where the address was reused is the
# one that shows it (seen in 4 of 10 tries here).
test_tg_address_reused() {
	command -v bpftool >/dev/null || { echo "no bpftool here: a test for the host"; exit 77; }
	sched_backends | grep -qx tp_btf-pidhash || { echo "no tp_btf-pidhash here (no BTF)"; exit 77; }
	cgs_start top --sched-backend tp_btf-pidhash --json -i 1h || fail "cgsched refused"
	cg_create reuse-c && C=$CG
	# entry PID: "TG-BYTES CGID" of the task's cached state (tg: bytes 32-39
	# of the value). Looked up by its key, the pid's four bytes (x86: little
	# endian): a dump of the whole map grew by ~0.8 s a try in the 6.1 guest
	# (every process a try starts, bpftool and jq too, gets an entry), and
	# 20 tries outran the test's 200 s there; a lookup is ~2.3 s a try.
	entry() {
		bpftool -j map lookup name tasks key $(printf '%08x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/0x\4 0x\3 0x\2 0x\1/') 2>/dev/null |
			jq -r '"\(.value[32:40] | join("")) \(.formatted.value.cgid)"'
	}
	reused=0 tries=0
	for try in $(seq 1 20); do
		t0=$(uptime_ms)
		cg_create "reuse-a$try" && A=$CG
		cg_spawn "$A" "$CGWORK" wake 100 20000
		S=$SPAWNED
		nap 0.1
		kill -STOP "$S"
		nap 0.05
		before=$(entry "$S")
		echo "$S" >"$(cg_procs "$C")"
		rmdir "$CG_ROOT$A" || fail "rmdir $A"
		nap 0.1 # the task_group is freed after an RCU grace period
		cg_create "reuse-b$try" && B=$CG
		echo "$S" >"$(cg_procs "$B")"
		kill -CONT "$S"
		nap 0.1
		kill -STOP "$S"
		nap 0.05
		after=$(entry "$S")
		kill -KILL "$S"
		wait "$S" 2>/dev/null
		tries=$try
		[ -n "$before" ] && [ -n "$after" ] || fail "try $try: the task's entry is not in the map ('$before', '$after')"
		[ "${before%% *}" = "${after%% *}" ] && reused=$((reused + 1))
		idb=$(stat -c %i "$CG_ROOT$B")
		[ "${after##* }" = "$idb" ] ||
			fail "try $try: the task in $B (id $idb) is charged to ${after##* } (A's task_group address reused: $([ "${before%% *}" = "${after%% *}" ] && echo yes || echo no))"
		# Each try's time: 20 of them must fit the test's bound in a guest.
		echo "try $try: $(( $(uptime_ms) - t0 )) ms, address $([ "${before%% *}" = "${after%% *}" ] && echo reused || echo new)"
		[ "$reused" -ge 3 ] && break
	done
	cgs_stop INT || fail "cgsched failed"
	echo "$tries tries: B's task_group at A's old address $reused times; the task charged to B every time"
	# Whether the allocator gives the address back is its choice: in the 6.1
	# guest 3 times in 6-14 tries in 5 of 7 runs, 0 or 1 in 20 in the other
	# two (pinning every step to one CPU, and waiting for the cgroup's free,
	# made the host's 2 in 20 none). No reuse is no test of it this run:
	# said and counted as a skip, not a pass and not cgsched's failure.
	[ "$reused" -ge 1 ] || { echo "no address reused in $tries tries: not tested this run (the allocator's choice)"; exit 77; }
}
