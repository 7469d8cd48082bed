#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# /init of the QEMU guest: mount what a system has, put the cpu controller on
# cgroup v2 (or v1, as /cgsched/cgroup says), run the live tests, report on the serial console
# with CGS-* marker lines, dump the kernel log, power off.
/bin/busybox mkdir -p /proc /sys /dev /tmp /run
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# Pseudo-terminals, for top's screen (ptyrun): devtmpfs has /dev/ptmx, devpts the other ends.
mkdir -p /dev/pts && mount -t devpts -o ptmxmode=0666 devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || mount -t tracefs nodev /sys/kernel/debug/tracing 2>/dev/null
if [ "$(cat /cgsched/cgroup 2>/dev/null)" = v1 ]; then
	# As systemd hosts of 5.10's age lay it out: cpu and cpuacct co-mounted.
	mount -t tmpfs cgroup /sys/fs/cgroup
	mkdir /sys/fs/cgroup/cpu,cpuacct
	mount -t cgroup -o cpu,cpuacct cgroup /sys/fs/cgroup/cpu,cpuacct
	ln -s cpu,cpuacct /sys/fs/cgroup/cpu
	ln -s cpu,cpuacct /sys/fs/cgroup/cpuacct
else
	mount -t cgroup2 none /sys/fs/cgroup
	echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
fi
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp TMPDIR=/tmp LANG=C
ip link set lo up # cgsched export's tests scrape it on 127.0.0.1
echo "CGS-VM BOOTED $(uname -r)"
echo "CGS-VM CLOCK $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource); irq pressure: $(cat /proc/pressure/irq 2>&1 | head -n 1)"
cd /cgsched
# A hang watchdog: before the host gives up on us, say what is running.
wd=$(cat /cgsched/watchdog 2>/dev/null || echo 500)
# The kernel stacks of our processes and of every blocked task, and each
# CPU's backtrace (sysrq w, l) tell a stall in the kernel from one in cgsched.
(
	sleep "$wd"; echo "CGS-VM WATCHDOG after ${wd}s"; ps; cat /proc/loadavg
	for d in /proc/[0-9]*; do
		case "$(cat "$d/comm" 2>/dev/null)" in cgsched|cgwork|stress-ng*) ;; *) continue ;; esac
		echo "${d#/proc/} $(cat "$d/comm") $(grep State "$d/status") wchan=$(cat "$d/wchan" 2>/dev/null)"
		cat "$d/stack" 2>/dev/null
	done
	echo w >/proc/sysrq-trigger; echo l >/proc/sysrq-trigger
	sleep 2; dmesg | tail -n 300
) &
# Once (9 s here): the runner and its tests take this one.
./cgsched probe --json >/tmp/probe.json
sed 's/^/CGS-PROBE /' /tmp/probe.json
export CGS_PROBE_JSON=/tmp/probe.json
# Every test's figures go to the console log (the host prints only failures).
# Each test is bounded by the runner (CGS_TEST_TIMEOUT x CGS_TIME_SCALE):
# a stuck one costs its own bound, and the rest still run.
CGS_VERBOSE_TESTS=1 ROOT=/cgsched CGS_TIME_SCALE=$(cat /cgsched/scale) CGS_TEST_TIMEOUT=$(cat /cgsched/test-timeout) \
	CGS_TEST_REPEAT=$(cat /cgsched/repeat 2>/dev/null || echo 1) \
	sh tests/live/run.sh $(cat /cgsched/filter 2>/dev/null)
echo "CGS-VM DMESG-BEGIN"
dmesg
echo "CGS-VM DMESG-END"
echo "CGS-VM DONE"
sync
poweroff -f
