#!/usr/bin/env python3
"""Two binaries side by side, for a before/after figure of a change on a hot path.

    python3 benches/ab.py BIN_BEFORE BIN_AFTER [rounds, default 3] [seconds per row, default 5]

Each round starts each binary in turn (before, then after) on a fresh data directory with the
same organization, shipment body and 10,000 seeded shipments, and measures the rows that matter
for a change in the request path with wrk (64 connections, as benches/run.py): `/health`, create
(synchronous=full), get, list 20 with the total, the workbench's shipments page of 50
(signed in), and book with a PDF label (each request books
one of the shipments the create row made, with the sandbox carrier). Alternating the two within every round keeps
a drift of this shared machine's speed from favouring one; the table gives each row's median
over the rounds and the ratio after/before, in requests per second and in the server's CPU time
per request (user + system, from /proc; steadier than the rate on a noisy machine, since wrk's
share of the cores does not enter it). AB_ROWS=create,get (say) measures only those rows and
`/health`. Traffic goes only to 127.0.0.1.
"""

import os
import shutil
import sqlite3
import statistics
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
os.environ["BIN"] = os.path.realpath(sys.argv[1])
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
os.environ["SECONDS_PER_RUN"] = sys.argv[4] if len(sys.argv) > 4 else "5"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (reads BIN and SECONDS_PER_RUN when imported)

ROWS = ("health", "create", "get", "list", "workbench", "book")
if os.environ.get("AB_ROWS"):
    ROWS = ("health",) + tuple(r for r in os.environ["AB_ROWS"].split(",") if r != "health")


def cpu_seconds(pid):
    """User + system CPU seconds the process has used."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(server, url, script):
    """wrk's rate, and the server's CPU microseconds per request meanwhile."""
    before = cpu_seconds(server.proc.pid)
    result = run.wrk(url, script)
    used = cpu_seconds(server.proc.pid) - before
    requests = result["rps"] * run.SECONDS
    return result["rps"], used * 1e6 / max(requests, 1)


def measure(binary):
    """One pass of every row with `binary`, on a data directory of its own."""
    run.BIN = binary
    shutil.rmtree(run.DATA, ignore_errors=True)
    server = run.Server()
    try:
        org, token = run.new_org("bench")
        shipment_file, _ = run.prepare(server, org, token)
        post = run.lua("post.lua", token, "POST", body_file=shipment_file)
        get = run.lua("get.lua", token)
        shipments = f"{server.base}/orgs/{org}/shipments"
        one = run.api(server, token, "POST", f"/orgs/{org}/shipments",
                      __import__("json").load(open(shipment_file)))["id"]
        listed, list_token = run.new_org("listed")
        run.cli("dev", "seed", "--org", listed, "--shipments", "10000")
        listing = run.lua("list.lua", list_token)
        rows = {"health": timed(server, f"{server.base}/health", get)}
        # Book needs the shipments the create row made.
        if "create" in ROWS or "book" in ROWS:
            rows["create"] = timed(server, shipments, post)
        if "get" in ROWS:
            rows["get"] = timed(server, f"{shipments}/{one}", get)
        if "list" in ROWS:
            rows["list"] = timed(server, f"{server.base}/orgs/{listed}/shipments", listing)
        if "workbench" in ROWS:
            cookie = run.signed_in(server, "listed@example.com", "bench-password-1")
            rows["workbench"] = timed(server, f"{server.base}/app/{listed}/shipments",
                                      run.page_lua("workbench.lua", cookie))
        if "book" not in ROWS:
            return rows
        with sqlite3.connect(f"file:{run.DATA}/shipbase.db?mode=ro", uri=True) as db:
            pending = [r[0] for r in db.execute(
                "SELECT id FROM shipments WHERE org_id = ? AND status = 'pending'", (org,))]
        ids_file = os.path.join(run.WORK, "pending.txt")
        with open(ids_file, "w") as f:
            f.write("\n".join(pending) + "\n")
        book = run.lua("book.lua", token, ids_file=ids_file, prefix=f"/orgs/{org}/shipments/")
        rows["book"] = timed(server, f"{server.base}/", book)
        return rows
    finally:
        server.stop()


def main():
    before, after = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    results = {"before": [], "after": []}
    for n in range(ROUNDS):
        for name, binary in (("before", before), ("after", after)):
            print(f"== round {n + 1}: {name}", flush=True)
            results[name].append(measure(binary))
    print("\n| row | before req/s | after req/s | after/before | before CPU µs/req | after CPU µs/req "
          "| after/before |\n|-|-|-|-|-|-|-|")
    for row in ROWS:
        rate = [statistics.median(r[row][0] for r in results[n]) for n in ("before", "after")]
        cpu = [statistics.median(r[row][1] for r in results[n]) for n in ("before", "after")]
        print(f"| {row} | {rate[0]:,.0f} | {rate[1]:,.0f} | {rate[1] / rate[0]:.2f} "
              f"| {cpu[0]:.1f} | {cpu[1]:.1f} | {cpu[1] / cpu[0]:.2f} |")
    for name in results:
        print(f"\n{name}: " + "; ".join(
            f"{row} " + ", ".join(f"{r[row][0]:,.0f}/s {r[row][1]:.1f}µs" for r in results[name])
            for row in ROWS))


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(run.WORK, ignore_errors=True)
