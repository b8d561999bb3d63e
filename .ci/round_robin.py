#!/usr/bin/env python3
"""A `shipbase` stand-in that serves as two processes behind a load balancer (DESIGN §18).

`.ci/scale-out.sh` points the acceptance suite's SHIPBASE_BIN at this script. Every command but
`serve` goes to the real binary unchanged. `serve --listen HOST:PORT …` starts the real server
twice, on two free loopback ports with the same configuration (one PostgreSQL database, one
data directory for the shared secret key), and answers on HOST:PORT as a round-robin HTTP
proxy: each request goes to the next process, so consecutive requests of one client (and one
keep-alive connection) alternate between them. SIGTERM stops the proxy and both servers.

The real binary is the environment variable SCALE_OUT_REAL_BIN (the suite passes only the
variables that do not start with SHIPBASE_ to the server).
"""

import http.client
import http.server
import itertools
import os
import signal
import socket
import subprocess
import sys
import threading
import time

REAL = os.environ["SCALE_OUT_REAL_BIN"]
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"shipbase serve on port {port} exited with {proc.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit(f"shipbase serve on port {port} did not answer /health within 30 s")


def main() -> None:
    args = sys.argv[1:]
    if "serve" not in args:
        os.execv(REAL, [REAL, *args])
    listen = args[args.index("--listen") + 1]
    host, port = listen.rsplit(":", 1)
    backends, procs = [], []
    # One after the other: the first start makes the data directory's secret key, which the
    # second then reads.
    for _ in range(2):
        backend = free_port()
        own = list(args)
        own[own.index("--listen") + 1] = f"127.0.0.1:{backend}"
        proc = subprocess.Popen([REAL, *own])
        procs.append(proc)
        wait_healthy(backend, proc)
        backends.append(backend)
    turn = itertools.cycle(backends)
    turn_lock = threading.Lock()
    served = {backend: 0 for backend in backends}

    class Proxy(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args) -> None:
            pass

        def forward(self) -> None:
            with turn_lock:
                backend = next(turn)
                served[backend] += 1
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            upstream = http.client.HTTPConnection("127.0.0.1", backend, timeout=120)
            upstream.request(self.command, self.path, body=body, headers=headers)
            reply = upstream.getresponse()
            data = reply.read()
            self.send_response_only(reply.status, reply.reason)
            for key, value in reply.getheaders():
                if key.lower() not in HOP_BY_HOP and key.lower() != "content-length":
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            upstream.close()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = forward

    server = http.server.ThreadingHTTPServer((host, int(port)), Proxy)
    server.daemon_threads = True

    def stop(*_args) -> None:
        print("round-robin proxy: requests per process: "
              + ", ".join(f"127.0.0.1:{b} {n}" for b, n in served.items()), file=sys.stderr)
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        server.serve_forever()
    finally:
        stop()


if __name__ == "__main__":
    main()
