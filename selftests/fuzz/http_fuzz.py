#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""HTTP fuzz of roceccd's server (daemon/roceccd/http.c, libmicrohttpd).

Sends N requests to a running roceccd, each made from the seed and its
number alone (--seed S --only I replays request I): well-formed GETs of
every page with their answers checked (status, JSON, /events.json?since=
against the ring's rules), random paths, queries, methods, versions,
header counts and sizes, bodies, chunked and bogus lengths, pipelined
requests, requests cut short, raw bytes. Every 200 requests, and after
each request the server did not answer, a plain GET /metrics must answer
200. With --pid it reads the daemon's VmRSS after a warm-up and at the
end. --limits checks the connection limits (64 at once, 16 per address,
10 s idle timeout); --slow runs slowloris clients beside the fuzz.

Prints one line per failure, naming seed and request, then a summary
("http_fuzz: seed S requests N failures F rss_kb A -> B ..."); exit
status 1 if anything failed. Used by selftests/vm/t_roceccd_http.t.
"""
import argparse
import json
import random
import socket
import sys
import threading
import time

PAGES = ["/metrics", "/flows", "/flows.json", "/events.json", "/config", "/"]
METHODS = ["POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "CONNECT",
           "PROPFIND", "get", "Get", "BREW"]
U64_MAX = 2**64 - 1


class Fuzz:
    def __init__(self, args):
        self.a = args
        self.failures = []
        self.counts = {}
        self.answered = 0
        self.secs = {}
        self.lock = threading.Lock()

    # ---- I/O -----------------------------------------------------------
    def connect(self, src=None):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(self.a.timeout)
        if src:
            s.bind((src, 0))
        s.connect((self.a.host, self.a.port))
        return s

    def exchange(self, chunks, close_early=False, gap=0.0, wait=None):
        """Send @chunks; read until the server closes (or @wait s). (bytes, error)."""
        s = self.connect()
        if wait:
            s.settimeout(wait)
        data = b""
        try:
            for c in chunks:
                s.sendall(c)
                if gap:
                    time.sleep(gap)
            if close_early:
                return b"", None
            s.shutdown(socket.SHUT_WR) if self.a.half_close else None
            while True:
                b = s.recv(65536)
                if not b:
                    break
                data += b
        except socket.timeout:
            return data, "timeout"
        except (ConnectionResetError, BrokenPipeError):
            return data, "reset"
        finally:
            s.close()
        return data, None

    @staticmethod
    def parse(data, head=False):
        """Responses in @data: a list of (status, headers, body)."""
        out = []
        while data:
            end = data.find(b"\r\n\r\n")
            if end < 0:
                break
            lines = data[:end].split(b"\r\n")
            parts = lines[0].split(b" ", 2)
            try:
                status = int(parts[1])
            except (IndexError, ValueError):
                break
            hdrs = {}
            for ln in lines[1:]:
                k, _, v = ln.partition(b":")
                hdrs[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
            n = 0 if head else int(hdrs.get("content-length", "0"))
            body = data[end + 4:end + 4 + n]
            data = data[end + 4 + n:]
            out.append((status, hdrs, body))
        return out

    def fail(self, i, what):
        self.failures.append("seed %d request %d: %s" % (self.a.seed, i, what))
        print("FAIL seed %d request %d (--seed %d --only %d): %s"
              % (self.a.seed, i, self.a.seed, i, what), flush=True)

    def healthy(self):
        try:
            data, err = self.exchange([b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
                                       b"Connection: close\r\n\r\n"])
        except OSError:
            return False
        r = self.parse(data)
        return not err and r and r[0][0] == 200 and b"# TYPE" in r[0][2]

    def rss_kb(self):
        if not self.a.pid:
            return 0
        with open("/proc/%d/status" % self.a.pid) as f:
            for ln in f:
                if ln.startswith("VmRSS:"):
                    return int(ln.split()[1])
        return 0

    # ---- request makers: (kind, chunks, check) ---------------------------
    @staticmethod
    def junk(r, n, alphabet=None):
        if alphabet is None:
            return bytes(r.getrandbits(8) for _ in range(n))
        return "".join(r.choice(alphabet) for _ in range(n)).encode("latin-1")

    def since_value(self, r):
        k = r.randrange(12)
        if k < 4:
            return str(r.choice([0, 1, 5, 255, 256, 257, 1000])), True
        if k == 4:
            return str(U64_MAX), True
        if k == 5:
            return str(r.getrandbits(64)), True
        if k == 6:
            return r.choice(["-1", "-0", "+1", " 1", "1 ", "0x10", "1e3", "",
                             "18446744073709551616", "9" * 30, "%00",
                             "%ff%fe", "1%20"]), False
        if k == 7:
            return self.junk(r, r.randrange(1, 300),
                             "abcxyz-+.%~!*'()0123456789").decode(), None
        return str(r.randrange(0, 2000)), True

    def req_page(self, r, i):
        page = r.choice(PAGES)
        head = r.random() < 0.1
        q, since_ok, since = "", True, None
        if page == "/events.json" and r.random() < 0.8:
            since, since_ok = self.since_value(r)
            q = "?since=" + since
            if r.random() < 0.2:
                q += "&since=" + self.since_value(r)[0]
        elif r.random() < 0.2:
            q = "?" + self.junk(r, r.randrange(0, 200),
                                "ab=&;%2Fx0123456789").decode()
        ver = r.choice(["HTTP/1.1", "HTTP/1.0"])
        req = "%s %s%s %s\r\n" % ("HEAD" if head else "GET", page, q, ver)
        if ver == "HTTP/1.1" or r.random() < 0.5:
            req += "Host: localhost\r\n"
        req += "Connection: close\r\n\r\n"

        def check(resp, err):
            if err or not resp:
                return "no answer to %r (%s)" % (req[:120], err)
            if len(resp) != 1:
                return "%d answers to one request" % len(resp)
            st, hdrs, body = resp[0]
            if since_ok is None:
                return None if st in (200, 400) else "status %d" % st
            if not since_ok:
                if st != 400:
                    return "since=%r: status %d, want 400" % (since, st)
                if not head and b"is not an event number" not in body:
                    return "since=%r: 400 without the message: %r" % (since, body[:200])
                return None
            if st != 200:
                return "%s%s: status %d" % (page, q, st)
            if hdrs.get("x-content-type-options") != "nosniff":
                return "no X-Content-Type-Options: nosniff"
            if head or page not in ("/flows.json", "/events.json"):
                return None
            try:
                doc = json.loads(body)
            except ValueError as e:
                return "%s: invalid JSON (%s)" % (page, e)
            if page == "/events.json":
                return self.check_events(doc, int(since) if since else 0)
            return None
        return "page", [req.encode()], check, head

    @staticmethod
    def check_events(doc, since):
        seqs = [e["seq"] for e in doc["events"]]
        last, lost = doc["last"], doc["lost"]
        if seqs != sorted(set(seqs)):
            return "events not ascending or duplicated: %s" % seqs[:20]
        if seqs and (seqs[0] <= since or seqs[-1] != last):
            return "since %d: events %d..%d, last %d" % (since, seqs[0], seqs[-1], last)
        if since >= last and (seqs or lost):
            return "since %d >= last %d: %d events, lost %d" % (since, last, len(seqs), lost)
        if len(seqs) > 256:
            return "%d events, the ring holds 256" % len(seqs)
        if seqs and lost != max(0, seqs[0] - since - 1):
            return "lost %d, want %d" % (lost, seqs[0] - since - 1)
        return None

    def req_path(self, r, i):
        k = r.randrange(6)
        if k == 0:
            path = "/" + self.junk(r, r.randrange(0, 100),
                                   "abc/._-~%0123456789ABCDEF").decode()
        elif k == 1:
            path = "/" + "".join("%%%02x" % r.getrandbits(8) for _ in range(r.randrange(1, 60)))
        elif k == 2:
            path = "/" + "../" * r.randrange(1, 50) + "etc/passwd"
        elif k == 3:
            path = "/metrics" + r.choice(["/", "//", "/..", "%00", "?", "#x", ".json"])
        elif k == 4:
            path = "/" + "a" * r.choice([100, 1000, 8000, 20000, 40000])
        else:
            path = "/" + self.junk(r, r.randrange(1, 60), "\x01\x7f\xff\"<>'\\é") \
                .decode("latin-1")
        req = ("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path) \
            .encode("latin-1")
        # libmicrohttpd unescapes the path: "%00" ends it
        known = path.split("?")[0].split("%00")[0] in PAGES

        def check(resp, err):
            if err == "timeout":
                return "no answer for a GET of %d bytes" % len(path)
            if not resp:
                return None		# closed: a request it could not parse
            st, hdrs, body = resp[0]
            if st == 404 and not body.startswith(b"not found: "):
                return "404 without its message: %r" % body[:100]
            if st == 404 and any(c < 0x20 or c >= 0x7f for c in body[:-1]):
                return "404 echoes raw bytes: %r" % body[:120]
            if st not in (200, 400, 404, 414, 431) or (st == 200 and not known):
                return "status %d for %r" % (st, path[:80])
            return None
        return "path", [req], check, False

    def req_method(self, r, i):
        m = r.choice(METHODS + [self.junk(r, r.randrange(1, 40), "ABCXYZ-_!")
                                .decode()])
        body = self.junk(r, r.randrange(0, 2000)) if r.random() < 0.5 else b""
        req = ("%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
               "Content-Length: %d\r\n\r\n" % (m, r.choice(PAGES), len(body))) \
            .encode() + body

        def check(resp, err):
            if err == "timeout":
                return "no answer to %s" % m
            if resp and resp[0][0] not in (400, 405, 501):
                return "%s: status %d" % (m, resp[0][0])
            if resp and resp[0][0] == 405 and "GET" not in resp[0][1].get("allow", ""):
                return "405 without Allow"
            return None
        return "method", [req], check, False

    def req_headers(self, r, i):
        k = r.randrange(5)
        hdrs = ["Host: x"]
        if k == 0:
            hdrs += ["X-%d: %s" % (j, self.junk(r, r.randrange(0, 100), "abc 01"))
                     for j in range(r.randrange(1, 400))]
        elif k == 1:
            hdrs.append("X-Big: " + "v" * r.choice([1000, 16000, 33000, 70000]))
        elif k == 2:
            hdrs.append(self.junk(r, r.randrange(1, 200)).decode("latin-1")
                        .replace("\r", "").replace("\n", ""))
        elif k == 3:
            hdrs += ["X-Fold: a", " continued", "\tagain"]
        else:
            hdrs += ["Content-Length: " + r.choice(["-1", "99999999999999999999",
                                                    "abc", "5, 6", ""]),
                     "Transfer-Encoding: " + r.choice(["chunked", "gzip", "x"])]
        req = ("GET %s HTTP/1.1\r\n%s\r\nConnection: close\r\n\r\n"
               % (r.choice(PAGES), "\r\n".join(hdrs))).encode("latin-1")
        if k == 4 and r.random() < 0.5:
            req += b"zz\r\n" + self.junk(r, 50) + b"\r\n0\r\n\r\n"

        def check(resp, err):
            if err == "timeout":
                return "no answer to a request with odd headers (%d)" % k
            if resp and resp[0][0] not in (200, 400, 404, 413, 414, 431, 501):
                return "status %d" % resp[0][0]
            return None
        return "headers", [req], check, False

    def req_version(self, r, i):
        v = r.choice(["HTTP/0.9", "HTTP/2.0", "HTTP/1.2", "HTTP/9.9", "HTTP/1",
                      "http/1.1", "XTTP/1.1", "", "HTTP/1.1 extra"])
        req = ("GET /metrics %s\r\nHost: x\r\nConnection: close\r\n\r\n" % v).encode()
        return "version", [req], lambda resp, err: (
            "no answer to version %r" % v if err == "timeout" else None), False

    def req_partial(self, r, i):
        full = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Y: " + b"z" * 100 + b"\r\n\r\n"
        cut = r.randrange(0, len(full) - 1)
        return "partial", [full[:cut]], None, False

    def req_pipeline(self, r, i):
        n = r.randrange(2, 6)
        pages = [r.choice(PAGES) for _ in range(n)]
        req = b"".join(("GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n"
                        % (p, "Connection: close\r\n" if j == n - 1 else ""))
                       .encode() for j, p in enumerate(pages))

        def check(resp, err):
            if err:
                return "pipelined %d: %s after %d answers" % (n, err, len(resp or []))
            if len(resp) != n or any(x[0] != 200 for x in resp):
                return "pipelined %d: %s" % (n, [x[0] for x in resp])
            return None
        return "pipeline", [req], check, False

    def req_raw(self, r, i):
        """Raw bytes: the server may wait for more; 2 s, then we close."""
        b = self.junk(r, r.randrange(1, 3000))
        if r.random() < 0.5:
            b += b"\r\n\r\n"
        return "raw", [b], lambda resp, err: None, False

    MAKERS = [(req_page, 30), (req_path, 20), (req_method, 10), (req_headers, 12),
              (req_version, 5), (req_partial, 8), (req_pipeline, 8), (req_raw, 7)]

    def make(self, i):
        r = random.Random("%d:%d" % (self.a.seed, i))
        total = sum(w for _, w in self.MAKERS)
        x = r.randrange(total)
        for fn, w in self.MAKERS:
            if x < w:
                return fn(self, r, i)
            x -= w
        raise AssertionError

    def one(self, i):
        """Request @i; False when the server stopped answering after it."""
        kind, chunks, check, head = self.make(i)
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
        t0 = time.time()
        try:
            data, err = self.exchange(chunks, close_early=check is None,
                                      wait=2.0 if kind == "raw" else None)
        except OSError as e:
            self.fail(i, "%s: %s" % (kind, e))
            return self.healthy() or self.dead(i, kind)
        finally:
            with self.lock:
                self.secs[kind] = self.secs.get(kind, 0.0) + time.time() - t0
        if check is None:
            return True
        if check is None:
            return
        resp = self.parse(data, head)
        if resp:
            with self.lock:
                self.answered += 1
        why = check(resp, err)
        if why:
            self.fail(i, "%s: %s" % (kind, why))
        if (err or not resp) and not self.healthy():
            return self.dead(i, kind)
        return True

    def dead(self, i, kind):
        self.fail(i, "%s: the server stopped answering after it" % kind)
        return False

    def times(self):
        return " ".join("%s=%.1f" % (k, v) for k, v in sorted(self.secs.items()))

    # ---- slowloris and limits -------------------------------------------
    def slowloris(self, stop, held):
        """Clients that send a header byte every 2 s, below the per-address limit."""
        socks = []
        for j in range(self.a.slow_clients):
            try:
                s = self.connect(src="127.0.0.%d" % (10 + j % 4))
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
                socks.append(s)
            except OSError:
                pass
        held.append(len(socks))
        while not stop.wait(2.0):
            for s in list(socks):
                try:
                    s.sendall(b"X-a: b\r\n")
                except OSError:
                    socks.remove(s)
        held.append(len(socks))
        for s in socks:
            s.close()

    def open_idle(self, n, src):
        """@n connections from @src that send nothing; those still open after a moment."""
        socks = []
        for _ in range(n):
            s = socket.socket()
            s.bind((src, 0))
            s.settimeout(2)
            s.connect((self.a.host, self.a.port))
            socks.append(s)
        time.sleep(1.0)
        return [s for s in socks if self.still_open(s)]

    @staticmethod
    def still_open(s):
        s.setblocking(False)
        try:
            b = s.recv(1)
            return b != b""
        except BlockingIOError:
            return True
        except OSError:
            return False
        finally:
            s.setblocking(True)

    def limits(self):
        """The connection limits: per address, in all, and the idle timeout."""
        ok = True
        held = self.open_idle(20, "127.0.0.2")
        if len(held) != 16:
            print("FAIL limits: 20 idle connections from 127.0.0.2, %d held open, want 16" % len(held))
            ok = False
        else:
            print("limits: 16 of 20 idle connections from one address held")
        if not self.healthy():
            print("FAIL limits: another address cannot scrape while one holds its 16")
            ok = False
        more = []
        for src in ("127.0.0.3", "127.0.0.4", "127.0.0.5"):
            more += self.open_idle(16, src)
        extra = self.open_idle(4, "127.0.0.6")
        if len(held) + len(more) != 64 or extra:
            print("FAIL limits: %d held from four addresses, %d more from a fifth, want 64 and 0"
                  % (len(held) + len(more), len(extra)))
            ok = False
        else:
            print("limits: 64 connections in all, the 65th refused")
        t0 = time.time()
        while time.time() - t0 < 15 and any(self.still_open(s) for s in held + more):
            time.sleep(0.5)
        gone = time.time() - t0
        if any(self.still_open(s) for s in held + more):
            print("FAIL limits: idle connections still open 15 s later")
            ok = False
        else:
            print("limits: idle connections closed by the server within %.1f s" % (gone + 1))
        for s in held + more + extra:
            s.close()
        if not self.healthy():
            print("FAIL limits: not serving after the idle connections went")
            ok = False
        return ok

    # ---- the run ----------------------------------------------------------
    def requests(self, t0):
        """The -n requests, --jobs at a time (the server waits out raw bytes
        and cut bodies: 2 to 10 s each, overlapped). Each request is made
        from the seed and its number alone, so the order does not matter."""
        stop, lock, done = threading.Event(), threading.Lock(), [0]

        def worker(j):
            for i in range(j, self.a.n, self.a.jobs):
                if stop.is_set():
                    return
                if not self.one(i):
                    stop.set()	# every later request would wait out its timeout
                    return
                with lock:
                    done[0] += 1
                    k, dt = done[0], time.time() - t0
                    if k % 200 == 0:
                        print("http_fuzz: %d requests in %.1f s (seconds by kind: %s)"
                              % (k, dt, self.times()), flush=True)
                    if self.a.deadline and dt > self.a.deadline and not stop.is_set():
                        self.fail(i, "%d of %d requests after %.0f s, over --deadline"
                                  " (seconds by kind: %s)" % (k, self.a.n, dt, self.times()))
                        stop.set()
                if k % 200 == 0 and not self.healthy():
                    self.fail(i, "GET /metrics failed")
                    stop.set()

        ws = [threading.Thread(target=worker, args=(j,)) for j in range(self.a.jobs)]
        for w in ws:
            w.start()
        for w in ws:
            w.join()

    def run(self):
        print("http_fuzz: seed %d (replay: --seed %d [--only I])" % (self.a.seed, self.a.seed),
              flush=True)
        if not self.healthy():
            print("FAIL: roceccd does not answer GET /metrics before the fuzz")
            return 1
        if self.a.only is not None:
            self.one(self.a.only)
            return 1 if self.failures else 0
        ok = self.limits() if self.a.limits else True
        t0 = time.time()
        for _ in range(self.a.warmup):
            self.healthy()
        rss0 = self.rss_kb()
        print("http_fuzz: %d GET /metrics of warm-up in %.1f s" % (self.a.warmup, time.time() - t0),
              flush=True)
        stop, held = threading.Event(), []
        slow = None
        if self.a.slow_clients:
            slow = threading.Thread(target=self.slowloris, args=(stop, held))
            slow.start()
        t0 = time.time()
        self.requests(t0)
        dt = time.time() - t0
        if slow:
            stop.set()
            slow.join()
        for _ in range(self.a.warmup):
            self.healthy()
        rss1 = self.rss_kb()
        print("http_fuzz: kinds %s; %d answered" % (
            " ".join("%s=%d" % kv for kv in sorted(self.counts.items())), self.answered))
        if held:
            print("http_fuzz: slowloris clients held %d, %d at the end" % (held[0], held[-1]))
        print("http_fuzz: seed %d requests %d failures %d rss_kb %d -> %d seconds %.1f"
              % (self.a.seed, self.a.n, len(self.failures), rss0, rss1, dt), flush=True)
        return 1 if self.failures or not ok else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=9468)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("-n", type=int, default=3000, help="requests (default 3000)")
    p.add_argument("--only", type=int, help="replay request I of --seed alone")
    p.add_argument("--pid", type=int, help="the daemon's pid, for VmRSS")
    p.add_argument("--warmup", type=int, default=200,
                   help="GET /metrics before each RSS reading (default 200)")
    p.add_argument("--timeout", type=float, default=15.0,
                   help="seconds to wait for an answer (default 15)")
    p.add_argument("--jobs", type=int, default=1,
                   help="requests at once (default 1; below the per-address limit)")
    p.add_argument("--deadline", type=float, default=0,
                   help="fail when the requests take longer (seconds; default none)")
    p.add_argument("--limits", action="store_true",
                   help="check the connection limits first (about 15 s)")
    p.add_argument("--slow-clients", type=int, default=0,
                   help="slowloris clients during the fuzz (default 0)")
    p.add_argument("--half-close", action="store_true",
                   help="shut down the sending side after each request")
    a = p.parse_args()
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(2**31)
    sys.exit(Fuzz(a).run())


if __name__ == "__main__":
    main()
