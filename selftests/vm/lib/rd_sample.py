#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Sample roceccd's /flows.json every INTERVAL seconds into an NDJSON file.

    rd_sample.py URL OUT T0FILE [INTERVAL]

One line per sample: {"t_ms": MS, "epoch_us": US, "flows": [...]}, flows
as /flows.json has them. t_ms counts from the microsecond wall-clock stamp
in T0FILE (the backlog sampler's backlog.t0, lib/topo.sh), so that the
samples and the backlog file share one time axis: both are CLOCK_REALTIME
of the same guest, and both stamp a sample when its answer has arrived
(here: when the HTTP response has been read). Waits up to 10 s for T0FILE,
then falls back to its own start. Runs until SIGTERM; a failed request is
skipped (no line). Plain HTTP/1.0 over a socket: urllib's imports alone
take seconds under TCG, and the first samples matter.
"""
import json
import os
import signal
import socket
import sys
import time


def get(url, timeout=5.0):
    """The body of GET url (http://HOST:PORT/PATH); OSError if not 200."""
    hostport, _, path = url.partition("://")[2].partition("/")
    host, _, port = hostport.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(f"GET /{path} HTTP/1.0\r\nHost: {hostport}\r\n\r\n".encode())
        buf = []
        while True:
            b = s.recv(65536)
            if not b:
                break
            buf.append(b)
    head, _, body = b"".join(buf).partition(b"\r\n\r\n")
    if head.split(b" ", 2)[1:2] != [b"200"]:
        raise OSError("HTTP " + head[:40].decode(errors="replace"))
    return body


def main():
    url, out, t0file = sys.argv[1:4]
    interval = float(sys.argv[4]) if len(sys.argv) > 4 else 0.25
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    t0 = None
    for _ in range(100):
        try:
            t0 = int(open(t0file).read().strip())
            break
        except (OSError, ValueError):
            time.sleep(0.1)
    if t0 is None:
        t0 = time.time_ns() // 1000
    with open(out, "a", buffering=1) as f:
        nxt = time.monotonic()
        while True:
            try:
                flows = json.loads(get(url))
                now = time.time_ns() // 1000
                f.write(json.dumps({"t_ms": round((now - t0) / 1e3, 1),
                                    "epoch_us": now, "flows": flows},
                                   separators=(",", ":")) + "\n")
            except (OSError, ValueError):
                pass
            nxt += interval
            time.sleep(max(0.0, nxt - time.monotonic()))
            if nxt < time.monotonic() - interval:
                nxt = time.monotonic()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
    os._exit(0)
