#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Slow-header clients, for test_export_hostile_clients (t_export.sh).

slow_heads.py HOST PORT ADDRS PER_ADDR SECONDS
Opens PER_ADDR connections from each source address in ADDRS (comma-separated,
loopback ones: each is an address of its own to the server), sends a request
line, then one header byte every second and never ends the head. A connection
the server ends is opened again. Bounded: stops after SECONDS. Prints
"opened=N ended=N longest=S": how many the server ended, and the longest any
lived before it did.
"""
import socket
import sys
import threading
import time

host, port, addrs, per, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4]), float(sys.argv[5])
end = time.monotonic() + secs
lock = threading.Lock()
stats = {"opened": 0, "ended": 0, "longest": 0.0}


def client(src):
    while time.monotonic() < end:
        s = socket.socket()
        s.settimeout(2)
        try:
            s.bind((src, 0))
            s.connect((host, port))
        except OSError:
            s.close()
            time.sleep(0.2)
            continue
        t0 = time.monotonic()
        with lock:
            stats["opened"] += 1
        try:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            while time.monotonic() < end:
                s.sendall(b"a")
                try:
                    if s.recv(4096) == b"":
                        raise ConnectionError("closed")
                except socket.timeout:
                    pass
        except OSError:
            with lock:
                stats["ended"] += 1
                stats["longest"] = max(stats["longest"], time.monotonic() - t0)
        finally:
            s.close()


threads = [threading.Thread(target=client, args=(a,)) for a in addrs for _ in range(per)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("opened=%d ended=%d longest=%.1f" % (stats["opened"], stats["ended"], stats["longest"]))
