#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Clients that ask for /metrics and leave the answer unread, for
test_export_slow_readers (t_export.sh).

slow_readers.py HOST PORT N HOLD [SRC]
Opens N connections one after another (from the address SRC, a loopback
one, if given), each with a 2 KB receive buffer and 536-byte segments,
sends GET /metrics and reads the status line only. Prints the statuses
("status=200 ... status=503") and holds those answered 200 unread for HOLD
seconds; then reads each to its end (5 s at most) and prints "complete=N
cut=M": answers whose last chunk came, and answers the server ended first.
"""
import socket
import sys
import time

host, port, n, hold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
src = sys.argv[5] if len(sys.argv) > 5 else None
held, codes = [], []
for _ in range(n):
    s = socket.socket()
    # Small, so that the answer fills the buffers and the server holds the rest:
    # a small receive buffer, and a small segment size, since the kernel gives
    # the server's side a send buffer of ten segments twice over (loopback's
    # 64 KB segments: over a megabyte).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    s.settimeout(5)
    if src:
        s.bind((src, 0))
    s.connect((host, port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    line = s.recv(32).split(b"\r\n")[0].decode(errors="replace")
    code = line.split(" ")[1] if " " in line else "none"
    codes.append("status=" + code)
    if code == "200":
        held.append(s)
    else:
        s.close()
print(" ".join(codes), flush=True)
time.sleep(hold)
complete = cut = 0
for s in held:
    tail = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            tail = (tail + b)[-64:]
    except OSError:
        pass
    # The chunked body's last chunk: what a whole answer ends with.
    if tail.endswith(b"\r\n0\r\n\r\n"):
        complete += 1
    else:
        cut += 1
    s.close()
print("complete=%d cut=%d" % (complete, cut), flush=True)
