#!/usr/bin/env python3
"""Two real `shipbase serve` processes on one PostgreSQL database, behind the round-robin proxy
of .ci/round_robin.py (DESIGN §18): a plan-limit burst split across both admits exactly the
limit, and every webhook event is delivered once, not once per process's worker.

    .ci/scale-out-checks.py BINARY DATABASE_URL
"""

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

BIN = os.path.abspath(sys.argv[1])
DATABASE = sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
LIMIT, BURST = 5, 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(check, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            sys.exit(f"scale-out: {what} did not happen within {seconds:.0f} s")
        time.sleep(0.05)


class Receiver(http.server.BaseHTTPRequestHandler):
    """Counts webhook deliveries by event id."""
    deliveries: list = []
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with Receiver.lock:
            Receiver.deliveries.append(self.headers.get("webhook-id") or json.loads(body).get("id"))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_args) -> None:
        pass


def psql(sql: str) -> str:
    return subprocess.run(["psql", DATABASE, "-Atc", sql], check=True, capture_output=True,
                          text=True).stdout.strip()


def main() -> None:
    work = tempfile.mkdtemp(prefix="shipbase-scale-out-")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    config = os.path.join(work, "shipbase.toml")
    with open(config, "w") as f:
        f.write(f'[storage]\nurl = "{DATABASE}"\n[limits]\nrate_per_second = 0\n'
                f'[webhooks]\nallow_private_targets = true\n[plans.tiny]\nshipments = {LIMIT}\n')
    common = ["--config", config, "--data-dir", os.path.join(work, "data")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHIPBASE_")}
    env["SCALE_OUT_REAL_BIN"] = BIN
    env["SHIPBASE_LOG__LEVEL"] = "warn"
    proxy = subprocess.Popen([os.path.join(HERE, "round_robin.py"), "serve", *common,
                              "--listen", f"127.0.0.1:{port}", "--base-url", base], env=env)
    try:
        wait_until(lambda: healthy(base), "GET /health through the proxy")

        def cli(*args: str) -> str:
            return subprocess.run([BIN, *args, *common], env=env, check=True,
                                  capture_output=True, text=True).stdout

        created = json.loads(cli("org", "create", "--name", "Scale", "--slug", "scale", "--email",
                                 "scale@example.com", "--user-name", "Scale", "--json"))
        org, token = created["org"]["id"], created["token"]
        cli("org", "set-plan", org, "tiny")

        def call(method: str, path: str, body=None) -> tuple[int, dict]:
            request = urllib.request.Request(
                base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=30) as reply:
                    return reply.status, json.loads(reply.read() or b"null")
            except urllib.error.HTTPError as err:
                return err.code, json.loads(err.read() or b"null")

        status, address = call("POST", f"/orgs/{org}/sender-addresses", {
            "name": "Main", "attContact": "Mette", "address1": "Industrivej 12", "zipcode": "8000",
            "city": "Aarhus", "phone": "+4512345678", "countryCode": "DK", "state": "Midtjylland",
            "email": "w@example.com"})
        assert status == 201, address
        status, carrier = call("POST", f"/orgs/{org}/carriers", {
            "name": "Sandbox", "carrierSlug": "sandbox", "config": {},
            "senderAddressId": address["id"]})
        assert status == 201, carrier
        hook = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
        status, webhook = call("POST", f"/orgs/{org}/webhooks",
                               {"name": "hook", "url": hook, "events": ["shipment.created"]})
        assert status == 201, webhook
        shipment = {
            "reference": "SCALE-1", "senderAddressId": address["id"], "type": "outbound",
            "parties": [{"type": "receiver", "name": "Jane Doe", "address1": "Storgatan 1",
                         "postalCode": "11122", "city": "Stockholm", "countryCode": "SE",
                         "email": "jane@example.com", "phone": "+46701234567"}],
            "carrierSettings": {"carrierId": carrier["id"], "productId": "standard"},
            "parcels": [{"weight": 1.0, "weightUnit": "kg"}], "termOfTrade": "DAP"}

        # The burst: BURST creates at once, alternating between the processes.
        with ThreadPoolExecutor(BURST) as pool:
            statuses = list(pool.map(
                lambda _: call("POST", f"/orgs/{org}/shipments", shipment)[0], range(BURST)))
        counts = {s: statuses.count(s) for s in set(statuses)}
        assert counts == {201: LIMIT, 402: BURST - LIMIT}, counts
        print(f"scale-out: {BURST} concurrent creates over two processes: {counts}")

        # Every event once: each send is recorded as an attempt, so once all deliveries are
        # settled, LIMIT attempts for LIMIT deliveries means nothing went out twice.
        wait_until(lambda: psql("SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'delivered'")
                   == str(LIMIT), "every delivery settled")
        attempts = psql("SELECT COUNT(*) FROM webhook_attempts")
        with Receiver.lock:
            received = list(Receiver.deliveries)
        assert attempts == str(LIMIT), attempts
        assert len(received) == LIMIT and len(set(received)) == LIMIT, received
        print(f"scale-out: {LIMIT} events, {len(received)} deliveries, each once")
    finally:
        proxy.terminate()
        proxy.wait(timeout=30)
        receiver.shutdown()
        shutil.rmtree(work, ignore_errors=True)


def healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/health", timeout=1) as reply:
            return reply.status == 200
    except OSError:
        return False


if __name__ == "__main__":
    main()
