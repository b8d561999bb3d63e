#!/usr/bin/env python3
"""Shipbase benchmark: every row of benches/results.md in one run (benches/run.sh calls this).

Starts the release binary on a loopback port with a fresh data directory, seeds organizations,
and measures with wrk (closed loop, 64 connections; open at a fixed rate): shipment creates at
synchronous=full and normal, gets, lists of 20 with the total at 10k and at 1M shipments, booking
with a PDF label, the shipping quote, GET /health as the HTTP ceiling, the raw SQLite insert
ceiling (benches/sqlite_ceiling.rs), p99 at half the peak create rate, the server's peak RSS, and
the start-up time on the 1M-shipment database. Writes benches/results.md.

Environment: BIN (the binary), SECONDS_PER_RUN (default 10), CONNECTIONS (default 64),
LARGE (shipments of the large organization, default 1000000), OUT (default benches/results.md),
CEILING (a file holding the sqlite_ceiling output), POSTGRES (a PostgreSQL server's URL: adds
the PostgreSQL rows, one and two server processes on one database), ROWS (where to keep the
measured rows as JSON), BEFORE (the ROWS file of an earlier run, of the binary before a change:
each row then shows both figures). What follows "## Earlier measurements" in OUT is kept.
"""

import json
import os
import platform
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import http.cookiejar
import urllib.parse
import urllib.request

BIN = os.environ["BIN"]
SECONDS = int(os.environ.get("SECONDS_PER_RUN", "10"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "64"))
LARGE = int(os.environ.get("LARGE", "1000000"))
OUT = os.environ.get("OUT", "benches/results.md")
CEILING = os.environ.get("CEILING", "")
POSTGRES = os.environ.get("POSTGRES", "")
ROWS = os.environ.get("ROWS", "")
BEFORE = json.load(open(os.environ["BEFORE"])) if os.environ.get("BEFORE") else None
EARLIER = "## Earlier measurements"
WORK = tempfile.mkdtemp(prefix="shipbase-bench-")
DATA = os.path.join(WORK, "data")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return s.recv(16).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


class Server:
    """`shipbase serve` on DATA; `startup` is the time from exec to the first healthy answer."""

    def __init__(self, data=None, **env):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        environment = dict(os.environ, SHIPBASE_LIMITS__RATE_PER_SECOND="0",
                           SHIPBASE_LOG__LEVEL="warn", **env)
        environment.pop("SHIPBASE_CONFIG", None)
        log = open(os.path.join(WORK, "server.log"), "a")
        started = time.perf_counter()
        self.proc = subprocess.Popen(
            [BIN, "serve", "--listen", f"127.0.0.1:{self.port}", "--data-dir", data or DATA],
            cwd=WORK, env=environment, stdout=subprocess.DEVNULL, stderr=log)
        deadline = started + 60
        while not healthy(self.port):
            if time.perf_counter() > deadline or self.proc.poll() is not None:
                sys.exit("the server did not become healthy; see " + log.name)
            time.sleep(0.001)
        self.startup = time.perf_counter() - started

    def peak_rss_mb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def reset_peak(self):
        """Starts a new peak RSS measurement (Linux: 5 > clear_refs resets VmHWM)."""
        with open(f"/proc/{self.proc.pid}/clear_refs", "w") as f:
            f.write("5")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=60)


def cli(*args, data=None, env=None, stdin=None):
    out = subprocess.run([BIN, *args, "--data-dir", data or DATA], cwd=WORK, check=True,
                         capture_output=True, text=True, input=stdin,
                         env={**os.environ, "SHIPBASE_LOG__LEVEL": "warn", **(env or {})})
    return out.stdout


def signed_in(server, email, password):
    """The session cookie of `email` signed in to the workbench."""
    cli("user", "set-password", "--email", email, "--password-stdin", stdin=password + "\n")
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(server.base + "/login").read().decode()
    csrf = re.search(r'name="csrf_token" value="([^"]*)"', page).group(1)
    form = urllib.parse.urlencode({"csrf_token": csrf, "email": email, "password": password})
    opener.open(server.base + "/login", data=form.encode())
    session = next(c.value for c in jar if c.name == "shipbase_session")
    return f"shipbase_session={session}"


def page_lua(name, cookie):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(f'wrk.headers["Cookie"] = "{cookie}"\n')
    return path


def new_org(slug, data=None, env=None):
    created = json.loads(cli("org", "create", "--name", slug.title(), "--slug", slug, "--email",
                             f"{slug}@example.com", "--user-name", slug.title(), "--json",
                             data=data, env=env))
    return created["org"]["id"], created["token"]


def api(server, token, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.base + path, data=data, method=method, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read() or b"null")


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def wrk(url, script, seconds=SECONDS, connections=CONNECTIONS):
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                          "-s", script, url], cwd=WORK, check=True, capture_output=True,
                         text=True).stdout
    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))}
    for pct in ("50", "99"):
        value, unit = re.search(rf"\s{pct}%\s+([\d.]+)(us|ms|s)\b", out).groups()
        result[f"p{pct}"] = float(value) * UNITS[unit]
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    result["non2xx"] = int(bad.group(1)) if bad else 0
    return result


def fixed_rate(url, script, rate, seconds=SECONDS):
    """wrk running `script` at `rate` requests/s in total, the arrivals a Poisson process (each
    of wrk's two threads draws exponential gaps against a schedule and holds each of its
    connections' next request until its time; a request behind schedule goes at once), so a
    request's latency is the server's, not a queue in the load generator; latency in ms."""
    paced = script.replace(".lua", "_paced.lua")
    with open(paced, "w") as f:
        f.write(open(script).read() + f"""
local ffi = require("ffi")
ffi.cdef[[ typedef struct {{ long sec; long nsec; }} stamp_t; int clock_gettime(int, stamp_t *); ]]
local stamp = ffi.new("stamp_t")
local function now()
  ffi.C.clock_gettime(1, stamp)
  return tonumber(stamp.sec) * 1000 + tonumber(stamp.nsec) / 1e6
end
local threads = 0
function setup(thread) thread:set("id", threads); threads = threads + 1 end
function init(args) math.randomseed(1 + 7919 * id) end
local gap, due = 2 * 1000.0 / {rate}, nil
function delay()
  local t = now()
  due = (due or t) - gap * math.log(1 - math.random())
  return math.max(0, due - t)
end
""")
    result = wrk(url, paced, seconds=seconds)
    result["target"] = round(rate)
    return result


def hey_fixed_rate(url, token, body_file, rate, seconds=SECONDS):
    """POSTs at `rate` requests/s in total (hey -q is per worker); latency in ms. hey's workers
    tick in step (each starts its own ticker at once), so the requests come in bursts of
    `workers` at the full rate, not spread over time."""
    workers = 32
    per_worker = max(1, round(rate / workers))
    out = subprocess.run(["hey", "-z", f"{seconds}s", "-c", str(workers), "-q", str(per_worker),
                          "-m", "POST", "-T", "application/json", "-D", body_file,
                          "-H", f"Authorization: Bearer {token}", url],
                         cwd=WORK, check=True, capture_output=True, text=True).stdout
    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
              "target": per_worker * workers}
    for pct in ("50", "99"):
        result[f"p{pct}"] = float(re.search(rf"{pct}% in ([\d.]+) secs", out).group(1)) * 1000
    codes = dict((int(c), int(n)) for c, n in re.findall(r"\[(\d+)\]\s+(\d+) responses", out))
    result["non2xx"] = sum(n for c, n in codes.items() if not 200 <= c < 300)
    return result


def measured(server, run):
    """`run()` with the server's peak RSS during it (MB) added to its result."""
    server.reset_peak()
    result = run()
    result["rss"] = server.peak_rss_mb()
    return result


def lua(name, token, method="GET", body_file=None, ids_file=None, prefix=None):
    path = os.path.join(WORK, name)
    lines = [f'wrk.method = "{method}"', 'wrk.headers["Content-Type"] = "application/json"',
             f'wrk.headers["Authorization"] = "Bearer {token}"']
    if body_file:
        lines.append(f'wrk.body = io.open("{body_file}"):read("a")')
    if ids_file:
        # Each of wrk's two threads takes every other id, so every request books a new shipment.
        lines += [
            "local next_thread = 0",
            "function setup(thread) thread:set('index', next_thread); next_thread = next_thread + 1 end",
            "function init(args)",
            f'  ids = {{}}; for line in io.lines("{ids_file}") do ids[#ids + 1] = line end',
            "  n = 0",
            "end",
            "function request()",
            "  local i = (index + n * 2) % #ids + 1; n = n + 1",
            f'  return wrk.format("POST", "{prefix}" .. ids[i] .. "/book")',
            "end",
        ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.processor())
    memory = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal"))
    return (f"{os.cpu_count()} cores ({cpu}), {memory / 1024 / 1024:.0f} GiB RAM, "
            f"Linux {platform.release()}; wrk and hey on the same cores as the server")


def prepare(server, org, token):
    """A sender address, a sandbox carrier and three rules in `org`; the files of a shipment and
    of a quote request that use them."""
    address = api(server, token, "POST", f"/orgs/{org}/sender-addresses", {
        "name": "Main", "attContact": "Mette", "address1": "Industrivej 12", "zipcode": "8000",
        "city": "Aarhus", "phone": "+4512345678", "countryCode": "DK", "state": "Midtjylland",
        "email": "w@example.com"})["id"]
    carrier = api(server, token, "POST", f"/orgs/{org}/carriers", {
        "name": "Sandbox", "carrierSlug": "sandbox", "config": {}, "senderAddressId": address})["id"]
    for name, price in (("Economy", 39.0), ("Standard", 49.0), ("Express", 99.0)):
        api(server, token, "POST", f"/orgs/{org}/shipping-rules", {
            "name": name, "carrierId": carrier, "productId": "standard",
            "senderAddressId": address, "receivingCountries": ["DK", "SE", "NO", "DE"],
            "conditions": [{"type": "flatRate", "shippingPrice": price, "currency": "DKK"}]})
    shipment_file = os.path.join(WORK, "shipment.json")
    with open(shipment_file, "w") as f:
        json.dump({
            "reference": "BENCH-1", "senderAddressId": address, "type": "outbound",
            "parties": [
                {"type": "receiver", "name": "Jane Doe", "address1": "Storgatan 1",
                 "postalCode": "11122", "city": "Stockholm", "countryCode": "SE",
                 "email": "jane@example.com", "phone": "+46701234567",
                 "attention": "Reception, 2nd floor"},
                {"type": "sender", "name": "Warehouse 2", "address1": "Havnegade 4",
                 "postalCode": "8000", "city": "Aarhus", "countryCode": "DK",
                 "email": "warehouse@example.com", "phone": "+4512345679"}],
            "carrierSettings": {"carrierId": carrier, "productId": "standard",
                                "services": ["signature"],
                                "additionalParameters": {"note": "fragile"}},
            "parcels": [
                {"weight": 2.5, "weightUnit": "kg",
                 "dimensions": {"length": 30, "width": 20, "height": 10},
                 "orderLines": [
                     {"sku": "TS-1", "quantity": 2, "description": "T-shirt, organic cotton",
                      "unitPrice": 100.0, "currency": "DKK", "countryOfOrigin": "DK",
                      "tarrifNumber": "610910"},
                     {"sku": "MUG-7", "quantity": 1, "description": "Enamel mug, blue",
                      "unitPrice": 60.0, "currency": "DKK", "countryOfOrigin": "DK",
                      "tarrifNumber": "732394"}]},
                {"weight": 0.4, "weightUnit": "kg",
                 "dimensions": {"length": 20, "width": 15, "height": 5},
                 "orderLines": [
                     {"sku": "CAP-3", "quantity": 1, "description": "Baseball cap, black",
                      "unitPrice": 80.0, "currency": "DKK", "countryOfOrigin": "PT",
                      "tarrifNumber": "650500"}]}],
            "termOfTrade": "DAP", "servicePointId": "SP-1234"}, f)
    quote_file = os.path.join(WORK, "quote.json")
    with open(quote_file, "w") as f:
        json.dump({"destination": {"country": "SE", "postalCode": "11122", "city": "Stockholm"},
                   "items": [{"name": "T-shirt", "quantity": 2, "grams": 250, "price": 10000,
                              "sku": "TS-1"},
                             {"name": "Mug", "quantity": 1, "grams": 400, "price": 6000,
                              "sku": "MUG-7"}],
                   "currency": "DKK"}, f)
    return shipment_file, quote_file


def main():
    rows = {}
    ceiling = dict(re.findall(r"sqlite (\w+) (\d+)", open(CEILING).read())) if CEILING else {}

    server = Server()
    org, token = new_org("bench")
    shipment_file, quote_file = prepare(server, org, token)
    post = lua("post.lua", token, "POST", body_file=shipment_file)
    get = lua("get.lua", token)
    shipments = f"{server.base}/orgs/{org}/shipments"

    print("== health (HTTP ceiling)", flush=True)
    rows["health"] = measured(server, lambda: wrk(f"{server.base}/health", get))
    print("== create, synchronous=full", flush=True)
    rows["create_full"] = measured(server, lambda: wrk(shipments, post))
    print("== create at half the peak rate (wrk, Poisson arrivals; then hey)", flush=True)
    rows["create_fixed"] = measured(server, lambda: fixed_rate(
        shipments, post, rows["create_full"]["rps"] / 2))
    rows["create_hey"] = measured(server, lambda: hey_fixed_rate(
        shipments, token, shipment_file, rows["create_full"]["rps"] / 2))
    one = api(server, token, "POST", f"/orgs/{org}/shipments", json.load(open(shipment_file)))["id"]
    print("== get", flush=True)
    rows["get"] = measured(server, lambda: wrk(f"{shipments}/{one}", get))
    print("== book with a PDF label", flush=True)
    with sqlite3.connect(f"file:{DATA}/shipbase.db?mode=ro", uri=True) as db:
        pending = [r[0] for r in db.execute(
            "SELECT id FROM shipments WHERE org_id = ? AND status = 'pending'", (org,))]
    ids_file = os.path.join(WORK, "pending.txt")
    with open(ids_file, "w") as f:
        f.write("\n".join(pending) + "\n")
    book = lua("book.lua", token, ids_file=ids_file, prefix=f"/orgs/{org}/shipments/")
    rows["book"] = measured(server, lambda: wrk(f"{server.base}/", book, seconds=min(SECONDS, 5)))
    rows["book"]["available"] = len(pending)
    print("== shipping quote", flush=True)
    quote = lua("quote.lua", token, "POST", body_file=quote_file)
    rows["quote"] = measured(server, lambda: wrk(f"{server.base}/orgs/{org}/shipping-quote", quote))
    for slug, count in (("small", 10_000), ("large", LARGE)):
        small_org, small_token = new_org(slug)
        print(f"== seeding {count} shipments", flush=True)
        started = time.perf_counter()
        cli("dev", "seed", "--org", small_org, "--shipments", str(count))
        rows[f"seed_{slug}"] = {"seconds": time.perf_counter() - started, "count": count}
        print(f"== list 20 with total of {count}", flush=True)
        script = lua(f"list_{slug}.lua", small_token)
        rows[f"list_{slug}"] = measured(server, lambda: wrk(
            f"{server.base}/orgs/{small_org}/shipments", script))
    print("== the workbench's shipments page of 50, 1M shipments", flush=True)
    cookie = signed_in(server, "large@example.com", "bench-password-1")
    page = page_lua("workbench.lua", cookie)
    rows["workbench"] = measured(server, lambda: wrk(
        f"{server.base}/app/{small_org}/shipments", page))
    server.stop()

    print("== start-up on the large database", flush=True)
    startups = []
    for _ in range(5):
        server = Server()
        startups.append(server.startup)
        server.stop()
    rows["startup"] = {"ms": sorted(startups)[len(startups) // 2] * 1000,
                       "max_ms": max(startups) * 1000}

    print("== create, synchronous=normal", flush=True)
    server = Server(SHIPBASE_STORAGE__SYNCHRONOUS="normal")
    rows["create_normal"] = measured(server, lambda: wrk(f"{server.base}/orgs/{org}/shipments", post))
    server.stop()
    rows["rss_mb"] = max(r["rss"] for r in rows.values() if "rss" in r)
    if POSTGRES:
        rows["postgres"] = postgres_rows(POSTGRES)
    rows["ceiling"] = ceiling
    with open(ROWS or os.path.join(WORK, "rows.json"), "w") as f:
        json.dump(rows, f, indent=1)
    write(rows)
    print(open(OUT).read())


# Where the time goes for each target not met, from benches/profile_row.py (perf with DWARF call
# graphs of the release binary); re-profile after a change and rewrite this text.
PROFILE = """## Where the time goes (profiles after issue 30's eleventh part)

`benches/profile_row.py BIN ROW [FUNCTION [DEPTH]]`: `perf record --call-graph dwarf` of the
release server while wrk drives one row (2026-11-27; the workbench and the half-rate row
2026-11-28; the create row after the seventh and eighth parts and the get row after the
eighth, on the machine of this table's run), shares of all samples unless said:

- **get shipment** (eighth part, 2026-11-28 evening, on this machine: 43,992/s under perf):
  41 % of the samples in Shipbase's binary, 49 % in the kernel, 10 % in libc. A get is now one
  read transaction: the credential generation (which confirms the token's kept credential),
  the shipment's representation and its documents are read in one snapshot. Before, each was a
  transaction of its own, ~18 %, ~9 % and ~6.5 % of the samples, nearly all of it the
  transaction's start and end: SQLite takes the WAL index's read lock under one mutex all the
  process's connections share, and the first reader in (or the last out) takes or drops it
  with `fcntl` on the `-shm` file while holding that mutex, so the two workers queue on it.
  The one transaction left still costs 15 % (futex waits and wakes 10 %): it is what keeps a
  reader's snapshot safe from the checkpoint and from other processes. The rest is the
  per-request cost of the HTTP stack and loopback TCP that `/health` pays as well (`writev`
  25 %, hyper and poem's layers), the answer merged from the representation 6.5 % (serde_json
  skipping over the stored members), and the rows' reads 7 %. The ratio moves with
  `/health`'s own figure between runs (`/health` measured 62k to 103k/s on this machine the
  same afternoon).
- **list 20 + total**: scanning the twenty representations to skip the members a list item
  does not show (parties, parcels) is ~21 %; copies ~6 %; SQLite ~6 %. A column holding the
  list item's members (~300 bytes a row) would let a list copy them without a scan.
- **create shipment** (seventh part, 2026-11-28 afternoon, on this machine: 8,408/s under perf,
  5,708 samples at 499 Hz over 8 s, so the server ran 1.43 of the 2 cores and wrk the rest;
  the writer's thread 63 % of a core, not saturated: a create is bound by the machine's CPU,
  not by the writer). Shares of all the server's samples: the workers 48 % (their own code
  32 %, kernel 11 %, libc 5 %), the writer 44 %, the checkpoint thread 7 % (the kernel
  copying the log's pages into the file).
  - Workers: the HTTP stack (hyper, poem's endpoint layers, tokio) and the kernel's socket
    writes (`writev` 7 %), with ~3.5 % of `memcpy` as poem's layers move and box the request's
    future; the body's one-pass decoding 5.3 % (serde_json's work on a 1.45 kB body); the
    operation itself 10.3 % (the parties' checks 2.4 %, of which scanning the country list 1 %,
    a binary search since; the e-mail 0.6 %; the postcode's pattern 0.5 %; the answer merged
    from the representation 1.4 %; the representation written 1.3 %); authentication 4.4 %,
    3.35 % of it reading the credential generation (a read transaction's start is 1.5 %: SQLite
    re-reads the WAL index and page 1 whenever the log moved). The token's join (7 % before)
    and the sender address's read (5 % before) are no longer on the path.
  - Writer: the row's insert with its seven index B-trees and the count trigger 11.3 %, the
    search terms 6.5 %, the commit 13.6 % (writing the WAL frames 8 %, fsync 3.9 %, checksums
    1 %), the plan counter 1.6 %, the references read again 2 % (the sender address for the
    party, the carrier, the order), the savepoint's release and the rest of the batch ~5 %.
  - One page a shipment: the benchmark body's representation is 2,040 bytes, so its row
    (~2.25 kB) is just over half of a 4 kB page and SQLite keeps one row a page (4,105 bytes a
    shipment in `dbstat`); each create writes a page into the log and the checkpoint writes it
    again into the file (8.4 `pwrite` calls a create, two per WAL frame). An 8 kB page would
    hold three such rows but double every index page a batch dirties; measured in the tenth
    part (below), and kept.
  - After the eighth part (11,958/s under perf, 4,919 samples): workers 47 %, writer 47 %,
    checkpoint thread 6 %. Shipbase's own code, counted with everything it calls: the create
    handler 11.3 % (the body's one-pass decoding into the write type 5.6 %, most of it
    serde_json's; building the shipment and its representation 3.4 %; the answer merged from
    the representation 2.4 %), authentication 3.9 % (the generation read 2.8 %: creates keep
    it, the readers' mutex is rarely contended here), and the write job's own Rust code in the
    writer 5 % (the row's values, the terms, the counters; SQLite's own work there is 17.6 %,
    the kernel's 14.2 %, libc's 8.9 %). About 20 % of the server's samples in all.
  - After the ninth part (11,020/s under perf, 2026-11-28 evening; `/health` was ~70k/s then):
    the batch's creates run without a savepoint each, and the shipment's `INSERT` without the
    count trigger and its statement journal. SQLite's sub-journal (6 % of the samples before:
    every page a job touched copied once for its savepoint and again for the statement) is
    gone; the writer's thread fell from 46 % to 40 % of the server's samples, libc in it from
    10.8 % to 5.7 %. In the writer now: the row's insert with its seven index B-trees 15.2 %,
    the search terms 5.8 %, the audit entry 2.5 %, writing the WAL frames 13.2 % and fsync
    5.9 %; its own Rust code ~5 %. In the workers: the create handler 12.2 % (decoding 6.5 %,
    building the shipment and its representation 3.3 %, the answer merged 2.1 %) and
    authentication 4.9 % (the generation read 3.4 %).
  - After the tenth part (14,271/s under perf, 2026-11-28 late evening, 5,299 samples at 499 Hz
    over 7.85 s: the server ran 1.35 of the 2 cores, the writer's thread 58 % of one): a kept
    API token is confirmed in the write's own transaction instead of a read transaction of its
    own on the worker, and the answer is written from the representation with the offsets where
    the members it leaves out go instead of merged from it. Authentication on the workers fell
    from 4.9 % to 0.9 %; the confirmation in the writer costs 0.5 % (the generation read 0.4 %);
    the answer from 2.1 % to 0.3 %. Workers 50 %, writer 43 %, checkpoint thread 7 %. In the
    writer: the row's insert with its seven index B-trees 16.5 %, the search terms 6.5 %, the
    audit entry 2.7 %, the references read again 2.5 %, the plan counter 1.9 %, the WAL frames
    13.5 %, fsync 5.9 %. In the workers: the body's one-pass decoding 7.1 % (serde_json's),
    building the shipment and its representation 3.3 %, and the HTTP stack (hyper, poem's
    layers, `writev` 9.2 %).
  - Then new SQLite files got 8 KiB pages (the profile above is of 4 KiB ones): a page holds
    three of the benchmark's shipment rows instead of one, so a batch of creates writes fewer
    pages into the log and the checkpoint copies fewer back. `benches/ab.py`, 4 rounds × 5 s,
    4 KiB → 8 KiB pages: create 11,635 → 12,645/s (1.09×), CPU 121.5 → 113.4 µs a request;
    get 35,765 → 37,245/s (1.04×), CPU 37.1 → 35.3 µs; list unchanged.
  - And a get writes its answer around offsets stored with the representation (V34) instead
    of merging it with serde_json (6.5 % of a get's samples in the eighth part's profile):
    get 35,313 → 38,699/s (1.10×), CPU 37.2 → 33.4 µs a request (`benches/ab.py`, 3 rounds).
  - The tenth part's table (2026-11-29 01:04–01:11) had a slow disk: the raw SQLite insert at
    synchronous=full made 2,981/s (4,740/s at 23:43 the evening before, 3,786/s at 23:59).
    The create at synchronous=full made 0.171× `/health` there, and 0.19× at
    synchronous=normal. Across three runs of that part's builds the create at full measured
    0.177, 0.15 and 0.171 while its CPU per request fell: what moves the row between runs is
    the commit's sync and the machine.
  - What bounds the create (eleventh part, 2026-11-29 night, `benches/create_path.py`: each
    run's machine and writer accounted from /proc and perf's sync tracepoints, the closed
    loop of this table's row): the writer. Its thread spent 64–67 % of the run's wall time on
    the CPU and 32–37 % in the log's sync at each commit, and 0–3 % waiting for jobs, while
    the machine stayed 20–22 % idle (`/health` leaves it 2–5 % idle). A commit took 27 creates
    (the other connections' requests were in the workers, on the wire or in wrk), its sync
    0.52–0.63 ms. So a create costs the writer ~40 µs of CPU plus a 27th of a sync (~21 µs):
    ~15–17k/s on this machine, whatever the workers do.
  - What the writer's CPU is (`benches/profile_row.py` of e10cde1, before the sync change
    below: 5,485 samples, 13,876/s under perf; the writer's thread 45 % of the server's
    samples): the kernel 46 % (writing the
    commit's log frames into the page cache, ~54 pages of 8 KiB a commit, and submitting the
    sync), SQLite's own C code 35 % (the row's insert into its table and seven index B-trees,
    the search terms' B-tree, the audit entry, the counters, the WAL frames' checksums), libc
    5 % (SQLite's copies), rusqlite 3 %, the Rust library code our code calls 6 % (UTF-8
    checks of the rows read, collecting the search terms), mimalloc 1 %, and Shipbase's own
    functions 4 %. Shipbase's code is thus at most ~10 % of the writer's CPU, ~6 % of its cycle
    with the sync: if it cost nothing, the create could rise by ~6 %.
  - What the schema costs there, measured by dropping or changing indexes in the running
    server's database (`benches/ab.py`-style rounds, same binary on both sides): without the
    two indexes that earn least (`shipments_sender_address`, which keeps a sender address's
    delete from scanning the shipments, and `shipments_org_updated`, the live lists' change
    marker) 13,520 → 13,628/s and 105.3 → 105.7 µs of CPU a create (4 rounds): within the
    noise, so both stay; the two newest-first indexes made ascending (SQLite reads them
    backwards as fast) 14,856 → 15,112/s, 95.9 → 94.5 µs (4 rounds), within the noise too.
    The log's pages a commit (WAL frames mapped to their B-trees): search terms 14, the table
    9–10, each of the seven indexes 2–5, the audit log 4, page 1, the two counters 1 each.
  - SQLite's sync: the bundled build had no `HAVE_FDATASYNC` (SQLite's configure script sets
    it on Linux; the bundled build has no configure step), so every commit called `fsync`,
    which also writes the log's inode (its times) and so commits the file system's journal.
    With `fdatasync` (eleventh part): the sync 0.62–0.63 → 0.52–0.58 ms, the create 15,185–
    16,026 → 15,845–16,627/s and the server's CPU 88.1–92.5 → 86.5–87.6 µs a create (three
    alternating runs each of `benches/create_path.py`).
  - So what remains of a create's cost is outside Shipbase's code: the writer's cycle is the
    file system's sync (a third) and SQLite's and the kernel's work of the row's B-trees and
    log (nine tenths of the rest); in the workers, where the machine has a fifth to spare,
    the HTTP stack (hyper, poem, tokio; `writev`), serde_json decoding the 1.45 kB body, and
    wrk. The row's ratio moves with `/health` and the disk between runs (`/health` measured
    67k to 95k/s on this machine the same night, the create 13.5k to 17.5k/s).
- **create at half the peak rate**: met in this table's run (p99 5.66 ms at 5,408/s asked). On
  the morning's machine (another disk; the run of 09:38 had 61.65 ms) the tail was the
  commit's file-system work, not a queue in Shipbase's code. `benches/sync_tail.py` (perf's fsync/fdatasync tracepoints) over three 10 s runs at
  1,728/s (2026-11-28, this build; p50 4.0–4.4 ms, p99 16–21 ms): the writer's thread spent
  15 of the 30 s in the log's fsync (one per commit, ~510/s; 0.74–0.88 ms median, 5 ms at the
  99th, 17–114 ms at most), and 123 times in the database file's fsync of its own checkpoint
  (4.7 ms median, 18 ms at the 99th); the checkpoint thread's fsyncs of the file (6–7 ms median)
  run beside the log's and lengthen them (ext4 commits one journal). Three checks that the tail
  is not elsewhere: a get at the same fixed rate answers with a p99 of 1.7 ms (`/health` 1.1–
  1.4 ms), so wrk, the scheduler and the HTTP stack add little; the writer copying the log four
  or eight times less often (its threshold at 16,000 or 32,000 pages: 34 or 16 of its own
  checkpoints instead of 123) left the p99 at 16–22 and 19–29 ms, so its checkpoints are not
  the tail; and the p99 falls with the rate, 7.0–7.4 ms at 400/s and 9.2–9.3 ms at 864/s (the
  target met at a quarter of the peak), as a queue behind a disk whose sync time varies does.
  With synchronous=normal (no sync at commit) the median falls to 2.2 ms but the p99 stays at
  22–26 ms, the checkpoints' syncs of the file then taking 13.5 ms at the median. The table's
  run had a 62 ms p99 (one stall of the file system: the log's fsync reached 114 ms in one of
  the runs above). hey's bursts of 32 (its workers tick together) gave 21–27 ms.
- **PostgreSQL's create, before and after**: the table's "before" figures come from the run
  that measured the previous release (2026-11-28 17:12), on another throwaway cluster. On one
  cluster, the same night, alternating the two binaries (one process, 8 s, 64 connections, two
  rounds each): the previous release 568 and 534/s, this build 609 and 661/s. So PostgreSQL's
  create did not fall: the clusters differed. Its writer makes one round trip per statement
  over TLS, and a create's statements run one after another in the batch's transaction.
- **book with a PDF label** (its ≥ 2k/s target is the first benchmark issue's, not issue 30's):
  2,227–2,257/s before issue 24's search terms (their earlier measurements below: the
  tracking numbers' terms cost a booking 16 %), 1.1–1.7k/s in this issue's runs. Not
  profiled again in this issue.
- **peak RSS**: the server starts in 32 MB (22 MB of it the binary's code and data as mapped);
  the largest row is the workbench's page of 50 over 1,000,000 shipments. With the database
  file memory-mapped, every page a read touched counted as well (the booking row peaked at
  110 MB, 46 MB of it the file's pages; 64 MB without the mapping).
- **workbench shipments page** (of 50, signed in; 2,294 req/s under perf): the template's
  render 25 %, the page's SQL 22 % (`store::shipments::lines`: 19 % stepping SQLite over the
  fifty rows and the count, the rows now read from columns, not from representations), the
  carriers of the filter 6 % (the whole carrier records with their addresses, where the menu
  needs id and name: the next thing to cut), the session, membership and change-feed point
  reads ~9 %, the rows' labels 2.5 %; SQLite's `sqlite3_step` is 17 % of all samples. Before
  the sixth part, planning the statements again on every request (a bound `LIMIT`) was 11 %
  and reading the fifty representations 16 %.
"""


def both(servers, run):
    """`run(server, connections)` against each server at once, the connections split between
    them: the summed rate and the slower of their latencies."""
    results = [None] * len(servers)

    def one(i):
        results[i] = run(servers[i], CONNECTIONS // len(servers))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(servers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"rps": sum(r["rps"] for r in results), "p50": max(r["p50"] for r in results),
            "p99": max(r["p99"] for r in results), "non2xx": sum(r["non2xx"] for r in results),
            "rss": max(r["rss"] for r in results)}


def postgres_rows(server_url):
    """Create, get and list on PostgreSQL (a new database on `server_url`), served by one
    process and then by two on the same database (each wrk gets half the connections)."""
    name = f"shipbase_bench_{os.getpid()}"
    subprocess.run(["psql", server_url, "-qc", f"CREATE DATABASE {name}"], check=True)
    base, query = (server_url.split("?", 1) + [""])[:2]
    url = base.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else "")
    env = {"SHIPBASE_STORAGE__URL": url}
    data = os.path.join(WORK, "pg-data")
    first = Server(data=data, **env)
    org, token = new_org("pgbench", data=data, env=env)
    shipment_file, _ = prepare(first, org, token)
    post = lua("pg_post.lua", token, "POST", body_file=shipment_file)
    get = lua("pg_get.lua", token)
    one = api(first, token, "POST", f"/orgs/{org}/shipments", json.load(open(shipment_file)))["id"]
    small_org, small_token = new_org("pgsmall", data=data, env=env)
    cli("dev", "seed", "--org", small_org, "--shipments", "10000", data=data, env=env)
    listing = lua("pg_list.lua", small_token)
    work = {
        "create": lambda s, c: measured(s, lambda: wrk(f"{s.base}/orgs/{org}/shipments", post,
                                                       connections=c)),
        "get": lambda s, c: measured(s, lambda: wrk(f"{s.base}/orgs/{org}/shipments/{one}", get,
                                                    connections=c)),
        "list": lambda s, c: measured(s, lambda: wrk(f"{s.base}/orgs/{small_org}/shipments",
                                                     listing, connections=c)),
    }
    rows = {}
    for kind, run in work.items():
        print(f"== PostgreSQL, one process: {kind}", flush=True)
        rows[f"{kind}_1"] = run(first, CONNECTIONS)
    second = Server(data=data, **env)
    for kind, run in work.items():
        print(f"== PostgreSQL, two processes: {kind}", flush=True)
        rows[f"{kind}_2"] = both([first, second], run)
    second.stop()
    first.stop()
    rows["version"] = subprocess.run(["psql", server_url, "-Atc", "SHOW server_version"],
                                     check=True, capture_output=True, text=True).stdout.strip()
    return rows


def postgres_lines(rows, sqlite_rows, line, header):
    if not rows:
        return []
    pg = rows
    return [
        "",
        f"### PostgreSQL {pg['version']} (same machine, same cores; a local server with its "
        "durable defaults, reached over verified TLS)",
        "",
        "Each row next to its SQLite figure above. \"two processes\": two `shipbase serve` on "
        "one database, each driven by its own wrk with half the connections; the rate is the "
        "sum. Each process writes through its single writer (group commit), whose transactions "
        "hold one advisory lock: one batch at a time across the processes, as on SQLite. On this "
        "2-core machine the PostgreSQL server, both processes and wrk share the same two cores, "
        "so a second process cannot add CPU for reads (gets and lists are slower, not faster); "
        "writes gain because the two writers' batches fill each other's round-trip waits.",
        "",
        header[0].replace("vs SQLite |", "vs SQLite row |"),
        header[1],
    ] + [
        line(f"{label}, {n}", pg[f"{kind}_{k}"], "–", True, sqlite_rows[sqlite_kind]["rps"])
        for kind, sqlite_kind, label in (("create", "create_full", "create shipment"),
                                         ("get", "get", "get shipment"),
                                         ("list", "list_small", "list 20 + total, 10k shipments"))
        for k, n in (("1", "one process"), ("2", "two processes"))
    ] + [
        "",
        "- Non-2xx answers on PostgreSQL: " + ", ".join(
            f"{k} {v['non2xx']}" for k, v in pg.items() if isinstance(v, dict)) + ".",
    ]


def write(rows):
    health = rows["health"]["rps"]
    sqlite_full = float(rows["ceiling"].get("full", 0)) or None
    sqlite_normal = float(rows["ceiling"].get("normal", 0)) or None

    def ratio(value, ceiling):
        return f"{value / ceiling:.2f}" if ceiling else "–"

    def before_of(r):
        """The same row of the run before the change (BEFORE), found by identity."""
        if BEFORE is None:
            return None
        for key, value in rows.items():
            if value is r:
                return BEFORE.get(key)
            if key == "postgres" and isinstance(value, dict):
                for k, v in value.items():
                    if v is r:
                        return (BEFORE.get("postgres") or {}).get(k)
        return None

    def line(work, r, target, met, sqlite=None):
        cells = (f"| {work} | {r['rps']:,.0f} | {r['p50']:.2f} | {r['p99']:.2f} | {r['rss']:.0f} | "
                 f"{ratio(r['rps'], health)} | {ratio(r['rps'], sqlite)} | {target} | "
                 f"{'yes' if met else 'no'} |")
        if BEFORE is not None:
            b = before_of(r)
            cells += (f" {b['rps']:,.0f} | {ratio(b['rps'], BEFORE['health']['rps'])} |"
                      if b else " – | – |")
        return cells

    extra = " before req/s | before vs HTTP |" if BEFORE is not None else ""
    rule = "-|-|" if BEFORE is not None else ""
    header = [f"| work | req/s | p50 | p99 | peak RSS MB | vs HTTP | vs SQLite | target | met |{extra}",
              f"|-|-|-|-|-|-|-|-|-|{rule}"]
    l10, l1m = rows["list_small"], rows["list_large"]
    fixed, hey = rows["create_fixed"], rows["create_hey"]
    book = rows["book"]
    bench = rows["workbench"]
    share = lambda r: r["rps"] / health  # noqa: E731
    text = [
        "# Benchmark results",
        "",
        f"Written by `benches/run.sh` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
        f"Machine: {machine()}. Each closed-loop row is wrk with 2 threads and {CONNECTIONS} "
        f"connections for {SECONDS} s; latencies in ms. \"vs HTTP\" is the share of the "
        "`GET /health` rate (the HTTP ceiling of this machine, measured in the same run), the "
        "measure of the targets; \"vs SQLite\" the multiple of the "
        "raw SQLite insert ceiling at the same `synchronous` (one transaction per row, one "
        "connection: `cargo bench --bench sqlite_ceiling`); group commit lets the service go "
        "past it."
        + (" \"before\": the same run of the binary before the change (issue 30: "
           f"{BEFORE.get('label', 'the previous release')})." if BEFORE is not None else ""),
        "",
    ] + header + [
        line("`GET /health` (HTTP ceiling)", rows["health"], "–", True),
        f"| SQLite insert, one commit per row, synchronous=full | {sqlite_full or 0:,.0f} | | | | | 1.00 | – | – |"
        + (" | |" if BEFORE is not None else ""),
        f"| SQLite insert, one commit per row, synchronous=normal | {sqlite_normal or 0:,.0f} | | | | | 1.00 | – | – |"
        + (" | |" if BEFORE is not None else ""),
        line("create shipment, synchronous=full (default)", rows["create_full"], "≥ 0.18 × HTTP",
             share(rows["create_full"]) >= 0.18, sqlite_full),
        line("create shipment, synchronous=normal", rows["create_normal"], "–", True, sqlite_normal),
        f"| create at half the peak rate (wrk, Poisson arrivals, {fixed['target']:,}/s asked) | "
        f"{fixed['rps']:,.0f} | "
        f"{fixed['p50']:.2f} | {fixed['p99']:.2f} | {fixed['rss']:.0f} | | | p99 ≤ 10 ms | "
        f"{'yes' if fixed['p99'] <= 10 else 'no'} |" + (" | |" if BEFORE is not None else ""),
        line("get shipment", rows["get"], "≥ 0.45 × HTTP", share(rows["get"]) >= 0.45),
        line("list 20 + total, 10k shipments", l10, "≥ 0.10 × HTTP", share(l10) >= 0.10),
        line(f"list 20 + total, {rows['seed_large']['count']:,} shipments", l1m,
             "≥ 0.9 × the 10k figure", l1m["rps"] >= 0.9 * l10["rps"]),
        line(f"workbench shipments page of 50, {rows['seed_large']['count']:,} shipments", bench,
             "≥ 0.05 × HTTP", share(bench) >= 0.05),
        line("book with PDF label", book, "≥ 2k/s", book["rps"] >= 2000),
        line("shipping quote (3 rules)", rows["quote"], "–", True),
        "",
        f"- The same half rate from hey (its {32} workers tick in step: bursts of 32 requests at "
        f"once, every {32000 / hey['target']:.0f} ms), as this table measured it before: "
        f"{hey['rps']:,.0f} req/s, p50 {hey['p50']:.2f} ms, p99 {hey['p99']:.2f} ms; non-2xx "
        f"{fixed['non2xx']} (wrk) and {hey['non2xx']} (hey).",
        f"- List at {rows['seed_large']['count']:,} / list at 10k: "
        f"{l1m['rps'] / l10['rps']:.2f}.",
        f"- Server peak RSS, the largest of the column (each row's peak is measured alone, the "
        f"kernel's high-water mark reset before it): {rows['rss_mb']:.0f} MB (target ≤ 100 MB)"
        + (f"; before: {BEFORE['rss_mb']:.0f} MB." if BEFORE is not None else "."),
        f"- Start-up to the first healthy `/health` on the database with "
        f"{rows['seed_large']['count']:,} + shipments (median of 5): {rows['startup']['ms']:.0f} ms "
        f"(slowest {rows['startup']['max_ms']:.0f} ms; target ≤ 200 ms).",
        f"- Seeding with `shipbase dev seed`: {rows['seed_large']['count']:,} shipments in "
        f"{rows['seed_large']['seconds']:.1f} s.",
        f"- Booking used {book['available']:,} pending shipments; non-2xx answers: "
        f"{book['non2xx']} (a shipment booked twice answers 409).",
        f"- Non-2xx answers elsewhere: create {rows['create_full']['non2xx']}, "
        f"fixed-rate {fixed['non2xx']}, get {rows['get']['non2xx']}, "
        f"lists {l10['non2xx']} / {l1m['non2xx']}, workbench {bench['non2xx']}, "
        f"quote {rows['quote']['non2xx']}.",
    ] + postgres_lines(rows.get("postgres"), rows, line, header) + [
        "",
        PROFILE,
    ]
    earlier = ""
    if os.path.exists(OUT):
        kept = open(OUT).read()
        if EARLIER in kept:
            earlier = kept[kept.index(EARLIER):]
    with open(OUT, "w") as f:
        f.write("\n".join(text) + ("\n" + earlier if earlier else ""))


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
