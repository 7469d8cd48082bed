#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The live tests on another kernel: one of Debian's (tests/vm/kernels) under
# QEMU (TCG). Usage: tests/vm/run.sh [TEST_FILTER]; CGS_VM_KERNEL names the
# kernel (default 6.1), and the guest mounts the cgroup version the table
# gives it.
#
# The kernel is fetched with apt once (tests/vm/fetch-kernel.sh) and cached
# in .output/vm/kernels; each kernel's run lives in .output/vm/NAME. Fails
# when a test fails, when the guest does not finish in time, or when the
# guest kernel logs a WARNING, BUG, Oops or lockdep splat; the console is
# kept in .output/vm/NAME/console.log either way.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KNAME=${CGS_VM_KERNEL:-6.1}
VM=$ROOT/.output/vm/$KNAME
# A bound for a hung guest, not a speed limit: the 6.1 guest's whole suite
# took 1192 s on a machine whose TCG ran 2.2 times slower than the one
# before (its watchdog, at the bound less 40 s, fired while it finished).
TIMEOUT=${CGS_VM_TIMEOUT:-1800}
# The guest runs everything several times slower: the tests' bounds stretch
# by this factor, and each test may take CGS_TEST_TIMEOUT s before that.
SCALE=${CGS_VM_TIME_SCALE:-5}
TEST_TIMEOUT=${CGS_TEST_TIMEOUT:-40}
for t in qemu-system-x86_64 cpio busybox apt-get dpkg-deb; do
	command -v $t >/dev/null || { echo "vm: $t missing (make deps installs it)"; exit 2; }
done
# 1. The kernel, once.
"$ROOT/tests/vm/fetch-kernel.sh" "$KNAME" || exit 2
CGV=$(awk -v n="$KNAME" '$1 == n { print $4 }' "$ROOT/tests/vm/kernels")
mkdir -p "$VM"
cd "$VM"
cp "$ROOT/.output/vm/kernels/$KNAME/vmlinuz" vmlinuz

# 2. The initramfs: busybox, our binaries and everything they link, the tests.
rm -rf rootfs && mkdir -p rootfs/bin rootfs/cgsched/.output/workloads rootfs/cgsched/tests
cp /bin/busybox rootfs/bin/busybox
copy_bin() { # copy_bin PATH DEST: the binary and the shared libraries ldd lists
	cp "$1" "$2"
	ldd "$1" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
		mkdir -p "rootfs$(dirname "$lib")"
		cp -L "$lib" "rootfs$lib"
	done
}
copy_bin "$ROOT/cgsched" rootfs/cgsched/cgsched
for w in "$ROOT"/.output/workloads/*; do
	copy_bin "$w" "rootfs/cgsched/.output/workloads/$(basename "$w")"
done
for tool in jq gojq bpftool stress-ng curl; do
	p=$(command -v $tool || true)
	[ -n "$p" ] && copy_bin "$p" rootfs/bin/$tool
done
cp -r "$ROOT/tests/live" rootfs/cgsched/tests/
# A terminal's description for top's screen (test_top_screen_on_pty, TERM=xterm).
mkdir -p rootfs/lib/terminfo/x && cp /lib/terminfo/x/xterm rootfs/lib/terminfo/x/
cp "$ROOT/tests/vm/init.sh" rootfs/init
chmod +x rootfs/init
echo "${1:-}" >rootfs/cgsched/filter
echo "${CGS_TEST_REPEAT:-1}" >rootfs/cgsched/repeat
echo $((TIMEOUT - 40)) >rootfs/cgsched/watchdog
echo "$SCALE" >rootfs/cgsched/scale
echo "$TEST_TIMEOUT" >rootfs/cgsched/test-timeout
echo "$CGV" >rootfs/cgsched/cgroup
# A sched_ext scheduler of the tests' own, for a kernel that has sched_ext.
if [ -f "$ROOT/.output/scx_min" ]; then
	copy_bin "$ROOT/.output/scx_min" rootfs/cgsched/.output/scx_min
	cp "$ROOT/.output/scx_min.bpf.o" rootfs/cgsched/.output/
fi
(cd rootfs && find . | cpio -o -H newc --quiet | gzip -1) >initramfs.cpio.gz

# 3. Boot. KVM does not work on these machines: TCG, two vCPUs, one host
# thread. (/dev/kvm here is kvm-pvm, "Pagetable-based Virtual Machine": it
# runs only kernels built as PVM guests, and Debian's is not; a boot under
# it printed not one byte, earlyprintk included.)
#
# tsc=reliable: TCG gives both vCPUs one TSC (QEMU's clock), but the
# kernel's boot check sees them unsynchronized, marks the TSC unstable and
# moves to the HPET, and its sched_clock then clamps each CPU's clock to a
# tick around the last tick's time: two CPUs' rq clocks can disagree by up
# to a tick (4 ms), and a wait timed from one CPU's clock to another's with
# them. With the TSC trusted, sched_clock and ktime read one counter on
# every vCPU, as on the host (docs/kernels.md, "The guests' clocks"). thread=multi was tried (issue 12): no faster on this 2-CPU host
# (tests took 5-20 % longer), and once the guest kernel soft-locked in a
# cgsched syscall while fentry/kprobe programs were attached, which never
# happened single-threaded. A soft lockup panics the guest (softlockup_panic),
# so such a wedge ends the run at once instead of using up the timeout.
#
# -cpu qemu64, not max: TCG emulates every feature max turns on (AVX2 and
# the rest, which the guest's kernel and libc then use), and the guests ran
# 20-40 % slower for it: cgsched's start-up 2.2-2.6 s against 1.5-1.7 s
# (three runs each, 6.1 guest), test_backend_pairs_load 46 s against 26
# (CGS_VM_CPU=MODEL tests/vm/run.sh ...; EPYC measured as qemu64). Nothing
# cgsched tests needs a newer CPU: BPF, its JIT, the clocks (tsc=reliable).
start=$(date +%s)
rc=0
# CGS_VM_SMP and CGS_VM_MEM give a guest more vCPUs and memory (make bench's
# big-host part: memory and refresh at 64 CPUs, functional under TCG, not speed).
# CGS_VM_CPUS: the host CPUs the guest may use (taskset's list; make test
# gives each lane its own, see tests/run.sh).
pin=""
[ -z "${CGS_VM_CPUS:-}" ] || pin="taskset -c $CGS_VM_CPUS"
timeout "$TIMEOUT" $pin qemu-system-x86_64 -accel "tcg,thread=${CGS_VM_THREAD:-single}" -smp "${CGS_VM_SMP:-2}" \
	-m "${CGS_VM_MEM:-1G}" -cpu "${CGS_VM_CPU:-qemu64}" \
	-kernel vmlinuz -initrd initramfs.cpio.gz \
	-append "console=ttyS0 panic=-1 softlockup_panic=1 tsc=reliable ${CGS_VM_APPEND:-quiet}" \
	-display none -monitor none -serial file:console.log -no-reboot </dev/null || rc=$?
secs=$(( $(date +%s) - start ))
kernel=$(sed -n 's/^CGS-VM BOOTED \(.*\)\r*$/\1/p' console.log | tr -d '\r')
[ -n "$kernel" ] || kernel=$KNAME
sed -n 's/^\(CGS-TEST .*\)/\1/p' console.log | tr -d '\r' | sed "s/^/[vm $kernel] /"
# The failing tests' logs (indented lines after a FAIL).
tr -d '\r' <console.log | awk '/^CGS-TEST FAIL/ { p = 1; next } /^CGS-TEST/ { p = 0 } p && /^    / { print }' | sed 's/^/[vm] /' || true
pass=$(grep -c '^CGS-TEST PASS' console.log || true)
failn=$(grep -c '^CGS-TEST FAIL' console.log || true)
skip=$(grep -c '^CGS-TEST SKIP' console.log || true)
sed -n 's/^CGS-PROBE //p' console.log | tr -d '\r' >probe.json

if ! grep -q '^CGS-VM DONE' console.log; then
	echo "vm: the guest did not finish (qemu exit $rc after ${secs}s; timeout ${TIMEOUT}s); console in $VM/console.log"
	tail -n 30 console.log | sed 's/^/[vm console] /'
	failn=$((failn + 1))
fi
splat=$(tr -d '\r' <console.log | sed -n '/^CGS-VM DMESG-BEGIN/,/^CGS-VM DMESG-END/p' |
	grep -E 'WARNING:|BUG:|Oops|general protection|lockdep|possible circular locking|possible recursive locking|INFO: task .* blocked' || true)
if [ -n "$splat" ]; then
	echo "vm: the guest kernel logged a splat; console in $VM/console.log"
	echo "$splat" | sed 's/^/[vm dmesg] /'
	failn=$((failn + 1))
fi
echo "$kernel $pass $failn $skip $secs" >result
echo "vm: $pass passed, $failn failed, $skip skipped (Linux $kernel, ${secs}s)"
[ "$failn" = 0 ]
