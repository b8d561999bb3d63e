#!/usr/bin/env python3
"""What bounds the closed-loop create: the machine's CPU, and the writer's cycle.

    python3 benches/create_path.py BIN [ROUNDS, default 2]

Starts BIN (a release build) on a fresh data directory as benches/run.py does and, in each round,
runs `/health` and then creates (synchronous=full, wrk with 64 connections) for SECONDS_PER_RUN
(default 8) seconds each, as the results table's rows do. For each run it prints, per request:
the server's CPU time (user + system, from /proc), wrk's, the rest of the machine's busy time
(the kernel's own threads: the file system's writeback and journal on behalf of the server's
writes), and the share of the machine left idle. For the create it prints how the writer's
thread spent the run's wall time: on the CPU (its /proc times), in the log's sync at each
commit (perf's fsync and fdatasync tracepoints; no call graphs), and the rest (waiting for
jobs), with the commits made and the creates a commit took on average.

A closed loop of 64 connections is bound by whichever stage is saturated: when the writer's CPU
plus its syncs fill its wall time, creates wait for the writer; when the machine has no idle
time left, they wait for the CPU. Needs perf and wrk; traffic only to 127.0.0.1.
"""

import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

if len(sys.argv) < 2:
    sys.exit(__doc__)
os.environ["BIN"] = os.path.realpath(sys.argv[1])
os.environ.setdefault("SECONDS_PER_RUN", "8")
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (reads BIN and SECONDS_PER_RUN when imported)

TICK = os.sysconf("SC_CLK_TCK")
EVENTS = ",".join(f"syscalls:sys_{edge}_{call}"
                  for call in ("fsync", "fdatasync") for edge in ("enter", "exit"))
SYNC = re.compile(
    r"\s*(\S+)\s+(\d+)\s+\[\d+\]\s+([\d.]+):\s+syscalls:sys_(enter|exit)_f(?:data)?sync")


def cpu(path):
    """User + system CPU seconds of a process or thread, from its `stat` under /proc."""
    fields = open(path).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def machine():
    """The machine's busy and idle CPU seconds (all cores), from /proc/stat."""
    values = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    idle = values[3] + values[4]
    return (sum(values) - idle) / TICK, idle / TICK


def writer_thread(pid):
    """The /proc stat path of the server's writer thread."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        if open(f"/proc/{pid}/task/{tid}/comm").read().strip() == "shipbase-writer":
            return f"/proc/{pid}/task/{tid}/stat", tid
    sys.exit("no shipbase-writer thread")


def syncs(recording, tid):
    """The count and total seconds of the thread's syncs (fsync, fdatasync) in a recording."""
    text = subprocess.run(["perf", "script", "-i", recording], capture_output=True, text=True,
                          check=True).stdout
    entered, count, total = None, 0, 0.0
    for line in text.splitlines():
        match = SYNC.match(line)
        if not match or match.group(2) != tid:
            continue
        at, edge = float(match.group(3)), match.group(4)
        if edge == "enter":
            entered = at
        elif entered is not None:
            count, total, entered = count + 1, total + at - entered, None
    return count, total


def measured(server, url, script, writer=None):
    """One wrk run with the accounting around it."""
    pid = server.proc.pid
    perf = None
    if writer:
        recording = os.path.join(run.WORK, "syncs.data")
        perf = subprocess.Popen(
            ["perf", "record", "-q", "-e", EVENTS, "-t", writer[1], "-o", recording],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
    server0, writer0 = cpu(f"/proc/{pid}/stat"), cpu(writer[0]) if writer else 0
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy0, idle0 = machine()
    started = time.monotonic()
    result = run.wrk(url, script)
    wall = time.monotonic() - started
    busy1, idle1 = machine()
    children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    server1, writer1 = cpu(f"/proc/{pid}/stat"), cpu(writer[0]) if writer else 0
    requests = result["rps"] * run.SECONDS
    per = 1e6 / requests
    wrk = (children1.ru_utime + children1.ru_stime) - (children0.ru_utime + children0.ru_stime)
    busy, idle = busy1 - busy0, idle1 - idle0
    line = (f"{result['rps']:,.0f}/s; µs a request: server {(server1 - server0) * per:.1f}, "
            f"wrk {wrk * per:.1f}, "
            f"rest of the machine {(busy - (server1 - server0) - wrk) * per:.1f}; "
            f"machine idle {100 * idle / (busy + idle):.0f} %")
    if perf:
        perf.send_signal(signal.SIGINT)
        perf.wait()
        commits, synced = syncs(recording, writer[1])
        on_cpu = writer1 - writer0
        line += (f"\n    writer: on the CPU {100 * on_cpu / wall:.0f} % of the wall time, in the"
                 f" log's sync {100 * synced / wall:.0f} %, waiting for jobs "
                 f"{100 * (wall - on_cpu - synced) / wall:.0f} %; {commits:,} commits "
                 f"({requests / max(commits, 1):.1f} creates a commit, sync "
                 f"{1000 * synced / max(commits, 1):.2f} ms on average), "
                 f"CPU {on_cpu * per:.1f} µs a create")
    return line


def main():
    for n in range(ROUNDS):
        server = run.Server()
        try:
            org, token = run.new_org(f"path{n}")
            shipment_file, _ = run.prepare(server, org, token)
            post = run.lua("post.lua", token, "POST", body_file=shipment_file)
            get = run.lua("get.lua", token)
            print(f"round {n + 1}, health: " + measured(server, f"{server.base}/health", get),
                  flush=True)
            writer = writer_thread(server.proc.pid)
            print(f"round {n + 1}, create: "
                  + measured(server, f"{server.base}/orgs/{org}/shipments", post, writer),
                  flush=True)
        finally:
            server.stop()
            shutil.rmtree(run.DATA, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(run.WORK, ignore_errors=True)
