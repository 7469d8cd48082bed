#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""stall_reader.py PID FOR_MS AT_MS...: keep a tracer from its CPU across step ends.

Waits (at most 10 s) for PID's child `cgwork pulse` to start, then stops PID
(the tracer) with SIGSTOP at each AT_MS after that start, for FOR_MS, and
continues it with SIGCONT. A stopped tracer reads its steps late, as one kept
from its CPU by a busier task would. Prints each stop's offsets from the
start, in ms, and exits 1 if no cgwork started.
"""
import glob
import os
import signal
import sys
import time


def cgwork_started(pid):
    """Whether pid has a child that runs `cgwork pulse` (its exec is done)."""
    try:
        with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
            kids = f.read().split()
    except OSError:
        return False
    for kid in kids:
        try:
            with open('/proc/%s/cmdline' % kid, 'rb') as f:
                argv = f.read().split(b'\0')
        except OSError:
            continue
        if len(argv) > 1 and argv[0].endswith(b'cgwork') and argv[1] == b'pulse':
            return True
    return False


def main():
    pid, for_ms, ats = int(sys.argv[1]), float(sys.argv[2]), [float(a) for a in sys.argv[3:]]
    deadline = time.monotonic() + 10
    while not cgwork_started(pid):
        if time.monotonic() > deadline:
            print('stall_reader: no cgwork pulse started in 10 s', file=sys.stderr)
            return 1
        time.sleep(0.0002)
    t0 = time.monotonic()
    for at in ats:
        time.sleep(max(0.0, t0 + at / 1000 - time.monotonic()))
        a = time.monotonic()
        os.kill(pid, signal.SIGSTOP)
        time.sleep(for_ms / 1000)
        os.kill(pid, signal.SIGCONT)
        print('stopped %.1f-%.1f ms' % ((a - t0) * 1000, (time.monotonic() - t0) * 1000))
    return 0


if __name__ == '__main__':
    sys.exit(main())
