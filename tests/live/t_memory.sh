# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Memory that grows with the slots in use, not with CPUs x slots
# (docs/design.md, "Memory"): a cgroup's hot figures per CPU (cg_hot), the
# rest in shards (cg_shard), shared by the CPUs with atomic adds where they
# are more than the shards.

# map_sizes PID: "VALUE_SIZE MAX_ENTRIES MEMLOCK" of each BPF map PID holds.
map_sizes() {
	for f in /proc/"$1"/fdinfo/*; do
		awk '/^value_size:/ { v = $2 } /^max_entries:/ { m = $2 } /^memlock:/ { l = $2 }
			END { if (v != "" && m != "") print v, m, l }' "$f" 2>/dev/null
	done
}

# possible_cpus: how many CPUs the kernel can have (libbpf_num_possible_cpus).
possible_cpus() {
	tr ',' '\n' </sys/devices/system/cpu/possible |
		awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n }'
}

# The two arrays at their model's size: CPUs x slots of 72 bytes, and
# shards x slots of 616, the shards as many as the CPUs up to 8 (8 beyond),
# as CGS_SHARDS says, or one per CPU with the per-CPU view.
test_memory_layout() {
	ncpu=$(possible_cpus)
	shards=$((ncpu < 8 ? ncpu : 8))
	for run in "default $shards" "env 1" "per-cpu $ncpu"; do
		set -- $run
		case $1 in
		default) cgs_start top --json -i 1h --max-cgroups 512 || fail "cgsched refused" ;;
		env) export CGS_SHARDS=1
			cgs_start top --json -i 1h --max-cgroups 512 || fail "cgsched refused with CGS_SHARDS=1" ;;
		per-cpu) cgs_start hist --per-cpu --json --max-cgroups 512 || fail "cgsched hist refused" ;;
		esac
		sizes=$(map_sizes "$CGS_PID")
		cgs_stop INT || fail "cgsched failed ($1)"
		unset CGS_SHARDS
		# By value size and bound (a one-entry map may share a value size).
		hot=$(echo "$sizes" | awk '$1 == 72 && $2 >= 512 { print $2 }')
		shard=$(echo "$sizes" | awk '$1 == 616 && $2 >= 512 { print $2 }')
		total=$(echo "$sizes" | awk '{ s += $3 } END { print s }')
		echo "$1: cg_hot $hot entries, cg_shard $shard entries (expected $((ncpu * 512)) and $(($2 * 512))); all maps $((total / 1024)) KiB memlock on $ncpu CPUs"
		[ "$hot" = $((ncpu * 512)) ] || fail "$1: cg_hot has $hot entries, expected $ncpu CPUs x 512"
		[ "$shard" = $(($2 * 512)) ] || fail "$1: cg_shard has $shard entries, expected $2 shards x 512"
	done
	# A shard count out of range: one line, exit 2, nothing attached.
	CGS_SHARDS=$((ncpu + 1)) "$CGSCHED" top -i 1 -n 1 >/dev/null 2>"$TMP/err"
	rc=$?
	[ "$rc" = 2 ] || fail "CGS_SHARDS=$((ncpu + 1)): exit $rc, expected 2"
	[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q CGS_SHARDS "$TMP/err" || fail "CGS_SHARDS out of range: $(cat "$TMP/err")"
}

# One shard shared by every CPU (CGS_SHARDS=1: the atomic adds a host with
# more CPUs than shards uses) counts as exactly as a shard per CPU: a cgroup
# busy on both CPUs at once, its histograms against its counts, the parts of
# its waits (--why) against their sum, and that sum against the kernel's
# run delay of its threads (as test_runq_matches_rundelay, to the ns).
test_shared_shard_counts_alike() {
	[ "$(possible_cpus)" -ge 2 ] || { echo "one CPU: nothing to share a shard with"; exit 77; }
	cg_create shared && A=$CG
	export CGS_SHARDS=1
	cgs_start top -v --why --cgroup "$A" --json -i 1h || fail "cgsched refused"
	unset CGS_SHARDS
	grep -q "1 shard (.*atomic adds)" "$TMP/cgs.err" || fail "no word of the one shard shared: $(head -5 "$TMP/cgs.err")"
	burn_in "$A" 2 1 1 >"$TMP/b1" 2>"$TMP/b1.err" &
	p1=$!
	out0=$(burn_in "$A" 3 2 0 2>"$TMP/b0.err") || fail "burn failed: $(cat "$TMP/b0.err")"
	wait_bounded "$p1" 20 "the burn on CPU 1"
	[ "$WAIT_RC" = 0 ] || fail "the burn on CPU 1 failed: $(cat "$TMP/b1.err")"
	cgs_stop INT || fail "cgsched failed"
	k=$(( $(echo "$out0" | kv rundelay_ns) + $(kv rundelay_ns <"$TMP/b1") ))
	got=$(cgs_summary "$A" .runq.sum_ns)
	n=$(cgs_summary "$A" .runq.count)
	h=$(cgs_summary "$A" '.runq.hist | add')
	sn=$(cgs_summary "$A" .oncpu_slices.count)
	sh=$(cgs_summary "$A" '.oncpu_slices.hist | add')
	parts=$(cgs_summary "$A" '.waited | .same_cgroup_ns + .other_cgroups_ns + .kernel_threads_ns + .realtime_ns + .idle_cpu_ns + .unattributed_ns')
	echo "run-queue: $n waits, histogram $h; $got ns, its parts $parts, the kernel's run delay $k; slices: $sn, histogram $sh"
	[ "$n" -gt 100 ] || fail "only $n run-queue waits"
	[ "$h" = "$n" ] || fail "the run-queue histogram holds $h waits, the count is $n"
	[ "$sh" = "$sn" ] || fail "the slice histogram holds $sh slices, the count is $sn"
	[ "$parts" = "$got" ] || fail "the parts of the waits sum to $parts, the waits to $got"
	[ "$got" = "$k" ] || fail "run-queue waits $got ns, the kernel's run delay $k ns"
}

# At many CPUs (make bench's 64-vCPU guest; skipped below 16 CPUs): 1,000
# cgroups, a task each waking every 500 ms, every one in top's rows, and
# top's BPF maps (memlock, from its fds) with its own anonymous memory
# within the 32 MiB the issue allows at 192 CPUs: at 64 the model gives
# 9.3 MiB of arrays (docs/performance.md, "Big hosts"). Its figures, and
# a refresh's CPU, go to the log for the bench. TCG: memory and function,
# not speed.
test_memory_big_host() {
	ncpu=$(possible_cpus)
	[ "$ncpu" -ge 16 ] || { echo "$ncpu CPUs: the big-host figures need 16 or more (make bench boots a 64-vCPU guest)"; exit 77; }
	n=${CGS_BIG_CGROUPS:-1000}
	cg_create big && B=$CG
	cg_enable_children "$B"
	"$CGWORK" fleet "$CG_ROOT$B" "$n" 3600 500 >"$TMP/fleet" 2>&1 &
	CGS_BG="$CGS_BG $!"
	deadline 120
	until file_has "$TMP/fleet" ready; do
		past_deadline && fail "the fleet of $n cgroups not ready: $(tail -n 3 "$TMP/fleet")"
		nap 0.5
	done
	cgs_start top -v --json -i 2 -r 0 || fail "cgsched refused"
	deadline 120
	until [ "$(grep -c '"kind": *"interval"' "$TMP/cgs.out")" -ge 3 ]; do
		past_deadline && fail "no third interval: $(tail -n 3 "$TMP/cgs.err")"
		nap 0.5
	done
	sizes=$(map_sizes "$CGS_PID")
	mem=$(awk '/^(VmRSS|RssAnon|RssFile|RssShmem):/ { sub(":", "", $1); printf "%s_kib=%s ", tolower($1), $2 }' /proc/"$CGS_PID"/status)
	cgs_stop INT || fail "cgsched failed"
	rows=$(jq -s '[.[] | select(.kind == "interval")] | .[-1].cgroups | length' "$TMP/cgs.out")
	full=$(jq -s '.[-1].drops.cgroup_map_full' "$TMP/cgs.out")
	lock=$(echo "$sizes" | awk '{ s += $3 } END { printf "%d", s / 1024 }')
	anon=$(echo "$mem" | tr ' ' '\n' | sed -n 's/^rssanon_kib=//p')
	ref=$(sed -n 's/.*refresh: \([0-9.]*\) ms CPU.*/\1/p' "$TMP/cgs.err" | tail -n 1)
	ref=${ref:-null}
	echo "BIG-HOST cpus=$ncpu cgroups=$n rows=$rows map_full=$full memlock_kib=$lock ${mem}refresh_cpu_ms=$ref"
	echo "$sizes" | sort -n -k3 | tail -n 5 | sed 's/^/largest maps (value size, entries, memlock): /'
	[ "$rows" -ge "$n" ] || fail "$rows rows in the last interval, $n cgroups busy"
	[ "$full" = 0 ] || fail "$full events lost to a full cgroup map"
	[ $((lock + anon)) -le $((32 * 1024)) ] || fail "maps $lock KiB and anonymous memory $anon KiB: over 32 MiB"
}

# The iterator's records of the kernel's figures (cgstat.bpf.c) start small
# and grow to twice what a pass found when one finds more: started at 2
# records (CGSCHED_TEST_KSTAT_CAP) on a host with more cpu cgroups, the
# listing is the same as at the default start, and says it grew.
test_kstat_records_grow() {
	cg_create grow && A=$CG
	cg_enable_children "$A"
	for i in 1 2 3 4 5; do mkdir "$CG_ROOT$A/c$i" || fail "mkdir failed"; done
	if ! "$CGSCHED" stat --json --method iter >"$TMP/big" 2>"$TMP/e"; then
		echo "no cgroup iterator here: $(cat "$TMP/e")"
		exit 77
	fi
	CGSCHED_TEST_KSTAT_CAP=2 "$CGSCHED" stat -v --json --method iter >"$TMP/small" 2>"$TMP/e" ||
		fail "stat from 2 records failed: $(cat "$TMP/e")"
	n=$(jq '.cgroups | length' "$TMP/big")
	m=$(jq '.cgroups | length' "$TMP/small")
	# The test's own (on v2 its children only where the cpu controller reaches them).
	q='[.cgroups[] | select(.path | startswith($a))] | length'
	mine=$(jq --arg a "$A" "$q" "$TMP/small")
	mine0=$(jq --arg a "$A" "$q" "$TMP/big")
	grew=$(grep "over the iterator's 2 records" "$TMP/e")
	echo "$n cgroups from the default start, $m from 2 records (the test's: $mine0 and $mine); $grew"
	[ -n "$grew" ] || fail "no word of the records grown: $(cat "$TMP/e")"
	[ "$mine" -ge 1 ] && [ "$mine" = "$mine0" ] || fail "the test's cgroups: $mine listed from 2 records, $mine0 from the default"
	# Cgroups come and go on a host between the two listings: a few apart at most.
	[ $((n - m)) -le 3 ] && [ $((m - n)) -le 3 ] || fail "$m cgroups listed from 2 records, $n from the default"
	! grep -q "did not fit" "$TMP/e" || fail "records lost: $(cat "$TMP/e")"
}
