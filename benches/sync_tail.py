#!/usr/bin/env python3
"""Where the tail of creates at a fixed rate goes: the file system's syncs.

    python3 benches/sync_tail.py BIN RATE [ROUNDS]

Starts BIN (a release build) on a fresh data directory as benches/run.py does, drives creates at
RATE requests/s with Poisson arrivals (run.fixed_rate) for ROUNDS runs of SECONDS_PER_RUN
(default 8) seconds, and records the server's fsync and fdatasync system calls with perf's
syscall tracepoints (cheap: no call graphs, no ptrace). Prints each run's req/s and latencies,
then, for each thread and file descriptor, how many syncs it made and how long they took (ms).
The writer's thread syncs the log at each commit and the database file at its own checkpoints;
the checkpoint thread syncs both for its checkpoints. Environment as benches/run.py (e.g.
SHIPBASE_STORAGE__SYNCHRONOUS=normal). Needs perf and wrk; traffic only to 127.0.0.1.
"""

import collections
import json
import os
import re
import signal
import subprocess
import sys
import time

if len(sys.argv) < 3:
    sys.exit(__doc__)
os.environ["BIN"] = os.path.realpath(sys.argv[1])
os.environ.setdefault("SECONDS_PER_RUN", "8")
RATE = float(sys.argv[2])
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 1

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (reads BIN and SECONDS_PER_RUN when imported)

EVENTS = ",".join(f"syscalls:sys_{edge}_{call}"
                  for call in ("fsync", "fdatasync") for edge in ("enter", "exit"))
LINE = re.compile(r"\s*(\S+)\s+(\d+)\s+\[\d+\]\s+([\d.]+):\s+syscalls:sys_(enter|exit)_\w+:\s*(.*)")


def syncs(recording):
    """Durations in ms of each (thread name, fd)'s syncs in a perf recording."""
    text = subprocess.run(["perf", "script", "-i", recording], capture_output=True,
                          text=True, check=True).stdout
    entered, took = {}, collections.defaultdict(list)
    for line in text.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        name, tid, at, edge, arg = match.groups()
        if edge == "enter":
            entered[tid] = (float(at), int(arg.split()[-1], 16))
        elif tid in entered:
            start, fd = entered.pop(tid)
            took[(name, fd)].append((float(at) - start) * 1000)
    return took


def main():
    server = run.Server()
    org, token = run.new_org("tail")
    shipment_file, _ = run.prepare(server, org, token)
    post = run.lua("post.lua", token, "POST", body_file=shipment_file)
    recording = os.path.join(run.WORK, "syncs.data")
    perf = subprocess.Popen(["perf", "record", "-q", "-e", EVENTS, "-p", str(server.proc.pid),
                             "-o", recording], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    for _ in range(ROUNDS):
        print(json.dumps(run.fixed_rate(f"{server.base}/orgs/{org}/shipments", post, RATE)),
              flush=True)
    perf.send_signal(signal.SIGINT)
    perf.wait()
    server.stop()
    for (name, fd), took in sorted(syncs(recording).items()):
        took.sort()
        n = len(took)
        print(f"{name} fd {fd}: {n} syncs, median {took[n // 2]:.2f}, "
              f"99th {took[int(n * 0.99)]:.2f}, max {took[-1]:.2f}, total {sum(took) / 1000:.1f} s")


main()
