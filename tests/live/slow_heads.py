#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Slow-header clients, for test_export_hostile_clients (t_export.sh), and
slow-body ones, for test_export_slow_bodies.

slow_heads.py HOST PORT ADDRS PER_ADDR SECONDS [body]
Opens PER_ADDR connections from each source address in ADDRS (comma-separated,
loopback ones: each is an address of its own to the server), sends a request
line, then one header byte every 2 seconds and never ends the head. With
"body", it sends a whole head of GET /metrics announcing a body of 100 MB,
then one body byte every 2 seconds. A connection the server ends is opened
again (a body client waits a second first). Bounded: stops after SECONDS.
Prints "opened=N ended=N answered=N longest=S": how many the server ended,
how many of those got an HTTP status line first, and the longest any lived
before the server ended it.
"""
import socket
import sys
import threading
import time

host, port, addrs, per, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4]), float(sys.argv[5])
body = len(sys.argv) > 6 and sys.argv[6] == "body"
if body:
    first = b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n"
else:
    first = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: "
end = time.monotonic() + secs
lock = threading.Lock()
stats = {"opened": 0, "ended": 0, "answered": 0, "longest": 0.0}


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
        got = b""
        with lock:
            stats["opened"] += 1
        try:
            s.sendall(first)
            while time.monotonic() < end:
                s.sendall(b"a")
                try:
                    b = s.recv(4096)
                    if b == b"":
                        raise ConnectionError("closed")
                    got += b
                except socket.timeout:
                    pass
        except OSError:
            with lock:
                stats["ended"] += 1
                stats["answered"] += got.startswith(b"HTTP/1.")
                stats["longest"] = max(stats["longest"], time.monotonic() - t0)
            if body:
                time.sleep(1)
        finally:
            s.close()


threads = [threading.Thread(target=client, args=(a,)) for a in addrs for _ in range(per)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("opened=%d ended=%d answered=%d longest=%.1f" % (stats["opened"], stats["ended"], stats["answered"], stats["longest"]))
