#!/usr/bin/env python3
"""Where one row's time goes: perf with DWARF call graphs while wrk drives the row.

    python3 benches/profile_row.py BIN ROW [FUNCTION [DEPTH]]
    python3 benches/profile_row.py --report PERF_DATA [FUNCTION [DEPTH]]

ROW is create, get, list (20 with the total of 10,000 shipments) or workbench (the shipments page
of 50 of 10,000 shipments, signed in). It starts BIN (a release build: it keeps its symbols and
unwind tables, no debug info or frame pointers needed) on a fresh data directory as
benches/run.py does, records `perf record --call-graph dwarf` of the server for one wrk run of
SECONDS_PER_RUN (default 8) seconds, and prints the req/s. Then it prints what the samples under
FUNCTION (a substring of a symbol; default: the whole process) spent their time in, DEPTH frames
below it (default 1), as shares of all samples: e.g. `create shipbase-writer` is the writer's
thread, `create_in 1` what a create's write job calls, `app::shipments::list 2` the workbench page.
Samples whose stacks perf could not unwind to FUNCTION are left out, so shares of a deep function
are a lower bound. With NOPERF=1 only the req/s is measured. The recording stays in
`$WORK/perf.data` (printed) for `perf report -i`; `--report` reads such a recording again.

Needs perf (linux-perf) and wrk; the traffic goes only to 127.0.0.1.
"""

import collections
import json
import os
import re
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
REPORT = sys.argv[1] == "--report"
os.environ["BIN"] = "" if REPORT else os.path.realpath(sys.argv[1])
os.environ.setdefault("SECONDS_PER_RUN", "8")
ROW = sys.argv[2]
FUNCTION = sys.argv[3] if len(sys.argv) > 3 else ""
DEPTH = int(sys.argv[4]) if len(sys.argv) > 4 else 1

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (reads BIN and SECONDS_PER_RUN when imported)


def target(server):
    """The URL and the wrk script of ROW."""
    org, token = run.new_org("prof")
    shipment_file, _ = run.prepare(server, org, token)
    shipments = f"{server.base}/orgs/{org}/shipments"
    if ROW == "create":
        return shipments, run.lua("post.lua", token, "POST", body_file=shipment_file)
    if ROW == "get":
        one = run.api(server, token, "POST", f"/orgs/{org}/shipments",
                      json.load(open(shipment_file)))["id"]
        return f"{shipments}/{one}", run.lua("get.lua", token)
    small, small_token = run.new_org("small")
    run.cli("dev", "seed", "--org", small, "--shipments", "10000")
    if ROW == "list":
        return f"{server.base}/orgs/{small}/shipments", run.lua("list.lua", small_token)
    if ROW == "workbench":
        cookie = run.signed_in(server, "small@example.com", "bench-password-1")
        return f"{server.base}/app/{small}/shipments", run.page_lua("workbench.lua", cookie)
    sys.exit(f"no row {ROW}: create, get, list or workbench")


def stacks(data):
    """Each sample's stack: the thread's name, then its frames innermost first."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym"], check=True,
                         capture_output=True, text=True).stdout
    stack = None
    for line in out.splitlines():
        if not line.strip():
            if stack:
                yield stack
            stack = None
        elif line.startswith((" ", "\t")):
            frame = line.strip().split(" ", 1)
            stack = stack or ["?"]
            stack.append(re.sub(r"\+0x[0-9a-f]+$", "", frame[1] if len(frame) > 1 else "?"))
        else:
            if stack:
                yield stack
            stack = [line.strip()]
    if stack:
        yield stack


def below(samples, function, depth):
    """Shares of all samples by the `depth` frames under the outermost frame that names
    `function` (the thread's name counts as the outermost frame)."""
    total, under = 0, collections.Counter()
    for stack in samples:
        total += 1
        # The first entry is the thread's name; frames follow innermost first.
        frames = stack[1:] + [stack[0]]
        hits = [i for i, frame in enumerate(frames) if function in frame]
        if not hits:
            continue
        outer = max(hits)
        path = tuple(frames[j] for j in range(outer - 1, max(outer - 1 - depth, -1), -1))
        under[path or ("(itself)",)] += 1
    return total, under


def report(data):
    total, under = below(stacks(data), FUNCTION, DEPTH)
    print(f"{sum(under.values())} of {total} samples under {FUNCTION or 'the process'}")
    for path, n in under.most_common(30):
        print(f"{100 * n / max(total, 1):6.2f}%  {' > '.join(frame[:80] for frame in path)}")


def main():
    if REPORT:
        report(ROW)
        return
    server = run.Server()
    url, script = target(server)
    if os.environ.get("NOPERF"):
        print(run.wrk(url, script))
        server.stop()
        return
    data = os.path.join(run.WORK, "perf.data")
    perf = subprocess.Popen(["perf", "record", "-F", "499", "--call-graph", "dwarf,16384",
                             "-o", data, "-p", str(server.proc.pid)], stderr=subprocess.DEVNULL)
    print(run.wrk(url, script))
    perf.send_signal(2)
    perf.wait()
    server.stop()
    print(f"recorded: {data}")
    report(data)


if __name__ == "__main__":
    main()
