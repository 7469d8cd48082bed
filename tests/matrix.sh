#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Write the compatibility matrix (docs/kernels.md) from the last test runs: for each kernel, the
# `cgsched probe --json` it gave and its test counts.
# Usage: tests/matrix.sh OUT PROBE.json "pass fail skip secs" [PROBE.json "..."]...
set -eu
out=$1
shift
{
	echo "# Kernel compatibility"
	echo
	echo "This file is generated: do not edit it by hand. tests/matrix.sh writes it"
	echo "from the last \`make test\` run on each kernel. For each kernel, the table"
	echo "shows what \`cgsched probe --json\` found there (it loads, attaches and"
	echo "detaches each backend) and how the live tests ended."
	echo
	echo "\`make test\` writes the current matrix to \`.output/kernels.md\` and leaves"
	echo "the tracked tree as it is. \`make kernels-doc\` copies that file to"
	echo "\`docs/kernels.md\`. The copy in the tree is from the run of $(date -u +%Y-%m-%d),"
	echo "and its test counts are that run's."
	echo
	echo "| kernel | cgroup | BTF | sched_ext | scheduler backends | throttle backends | window start | refused | live tests |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	while [ $# -ge 2 ]; do
		probe=$1 counts=$2
		shift 2
		[ -s "$probe" ] || continue
		jq -r --arg c "$counts" '
			($c | split(" ")) as $n |
			"| \(.kernel) | v\(.cgroup_version) (\(.cgroup_mount)) | \(if .btf then "yes" else "no" end) | " +
			(if .sched_ext == null then "not built" else "yes (\(.sched_ext.state) at probe)" end) + " | " +
			([.sched_backends[] | select(.ok) | .name] | join(", ")) + " | " +
			([(.throttle_backends // [])[] | select(.ok) | .name] | join(", ")) + " | " +
			(if ((.window_start // []) | map(select(.ok)) | length) > 0 then "seed_cpu (IPI)" else "nudge threads" end) + " | " +
			([(.sched_backends + (.throttle_backends // []) + (.window_start // []))[] | select(.ok | not) | "\(.name): \(.error)"] | join("; ") | if . == "" then "none" else . end) +
			" | \($n[0]) passed, \($n[1]) failed, \($n[2]) skipped (\($n[3]) s) |"' "$probe"
	done
	echo
	echo "What each backend needs, in the order cgsched tries them:"
	echo
	echo "| backend | needs |"
	echo "| --- | --- |"
	echo "| tp_btf | BTF, \`tp_btf\` programs (v5.5+), task storage for tracing programs (v5.11+) |"
	echo "| tp_btf-pidhash | BTF, \`tp_btf\` programs; task state in an LRU hash keyed by pid |"
	echo "| raw_tp | raw tracepoints (v4.17+); CO-RE probe reads; LRU hash keyed by pid |"
	echo "| throttle: fentry | BPF trampolines (v5.5+), \`throttle_cfs_rq\`/\`unthrottle_cfs_rq\` in BTF and not inlined, no lockdown |"
	echo "| throttle: kprobe | \`CONFIG_KPROBES\`; the symbols (or their compiler clones) in /proc/kallsyms |"
	echo "| throttle: tracepoint | nothing beyond \`sched_switch\` |"
	echo "| window start: seed_cpu | \`BPF_PROG_TEST_RUN\` of raw_tp programs on a chosen CPU (v5.10+); else a nudge thread per CPU |"
	echo "| \`cgsched stat\` iterator | BPF cgroup iterator (v6.1+); else the cgroup files |"
	echo "| hash maps preallocated | where the kernel has no any-context BPF allocator (before v6.1): see docs/design.md |"
	echo
	echo "## The guests"
	echo
	echo "The guests run Debian's kernels, listed in tests/vm/kernels. Each kernel"
	echo "is fetched with apt from its suite and booted under QEMU by tests/vm/run.sh."
	echo "The last column says what \`make test\` runs there. \"all\" is every live"
	echo "test except a shared list (VM_SHARED in tests/run.sh). \"core\" is the core"
	echo "list, and \"core+shared\" is the core plus the shared list. \`make"
	echo "test-matrix\` runs every test on every guest."
	echo
	echo "| guest | suite | package | cgroup | make test |"
	echo "| --- | --- | --- | --- | --- |"
	root=$(cd "$(dirname "$0")/.." && pwd)
	awk '!/^#/ && NF' "$root/tests/vm/kernels" | while read -r n suite meta cg mode; do
		pkg=$(cat "$root/.output/vm/kernels/$n/package" 2>/dev/null || echo "(not fetched yet: $meta)")
		[ "$suite" = host ] && suite="this machine's (bookworm)"
		echo "| $n | $suite | $pkg | $cg | $mode |"
	done
	cat <<'EOF'

## The guests' clocks

The guests run under QEMU's TCG, which emulates the CPU in software. KVM
does not help here: `/dev/kvm` on these machines is `kvm-pvm` (its kernel
log says "kvm-pvm: loaded"). That hypervisor runs only kernels built as PVM
guests, and Debian's are not: a boot under it printed nothing at all. Each
guest is one host thread. `make test` runs the 6.1 guest's tests beside
the other guests, which run one after another.

How the guests' clocks behave, and what the tests allow for it:

- TCG gives both vCPUs one TSC, QEMU's clock, so the guests boot with
  `tsc=reliable`. Without the option, the 6.1 guest finds the two vCPUs' TSCs out of
  step, marks the TSC unstable and moves to the HPET. Its `sched_clock` then
  holds each CPU's clock within a tick of the last tick, so two CPUs' rq
  clocks can differ by up to a tick (4 ms at HZ=250). With the option,
  `sched_clock` and ktime use one counter on every vCPU, as on the host.
  tests/vm/run.sh prints the clock source (`CGS-VM CLOCK tsc`). `-cpu
  max,+invtsc` alone does not keep the TSC.
- Run-queue waits against schedstat's run delay. Both read the same rq
  clock at the same events. So for a pinned workload in an exact window
  they are equal to the nanosecond, on the host and in the guests. The
  tests require equality for every backend, raw_tp included
  (docs/design.md, "Clocks").
- On-CPU time against schedstat. Both count the task clock: cgsched takes
  off each slice the stolen and interrupt time that the kernel's
  `clock_task` leaves out. On the host the two were 2 us apart over 40
  cgroups of 50 ms. In the guest, where interrupts are emulated, they are
  30-70 us apart as a rule and 4.0 ms at most. The guest's tests allow
  20 ms a cgroup and say so beside the assertion.
- A window's CPU share against `cpu.stat`'s usage. The kernel adds a
  running task's time at a tick or a switch. So its figure lags by up to a
  tick at each edge of a 0.3 s window, 2.7 points at most. The guest's
  ticks come late under emulation: up to 3.0 points there, against 0.06 on
  the host. The guest's reading vCPU can also stop for the other vCPU's turn
  between cgsched's read and the kernel's. Once this cost 138 ms, 15 points
  of a 0.9 s window. So `record` reads the kernel's count on both sides of
  its own read and reports the spread. The test adds half the spread to its
  bound (up to 5.6 points beside a second guest).
EOF
} >"$out"
