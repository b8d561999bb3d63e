#!/usr/bin/env bash
# HTTP benchmark of the release binary on loopback: creates, gets and lists shipments with wrk.
#   benches/http.sh [seconds per run, default 10] [connections, default 64]
# SHIPBASE_BIN=/path/to/shipbase measures that binary instead of building target/release.
# WEBHOOK=1 subscribes a webhook to shipment.created first, delivering to a loopback sink, so
# that creates also write the outbox and the worker delivers while the load runs.
# AGENT=1 authenticates with an agent's OAuth access token (a JWT, checked live on every request)
# instead of an API token (benches/agent_token.py runs the sign-in and consent flow).
# Installs wrk from Debian when missing. Traffic goes only to 127.0.0.1; every run is bounded.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD
DURATION="${1:-10}"
CONNECTIONS="${2:-64}"

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
if [ -z "${SHIPBASE_BIN:-}" ]; then
  cargo build --release --locked -q
fi
BIN="${SHIPBASE_BIN:-$PWD/target/release/shipbase}"

WORK="$(mktemp -d)"
trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
export SHIPBASE_LIMITS__RATE_PER_SECOND=0 SHIPBASE_LOG__LEVEL=warn SHIPBASE_WEBHOOKS__ALLOW_PRIVATE_TARGETS=true
cd "$WORK"
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" 2>"$WORK/server.log" &
SERVER=$!
for _ in $(seq 100); do curl -sf "$BASE/health" >/dev/null && break; sleep 0.05; done

OUT=$("$BIN" org create --name Bench --slug bench --email bench@example.com --user-name Bench --json --data-dir "$WORK/data")
TOKEN=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])' <<<"$OUT")
ORG=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["org"]["id"])' <<<"$OUT")
if [ "${AGENT:-0}" = 1 ]; then
  PASSWORD="bench-$RANDOM$RANDOM"
  printf '%s\n' "$PASSWORD" | "$BIN" user set-password --email bench@example.com --password-stdin --data-dir "$WORK/data" >/dev/null
  TOKEN=$(python3 "$REPO/benches/agent_token.py" "$BASE" bench@example.com "$PASSWORD" "$ORG")
fi
AUTH="Authorization: Bearer $TOKEN"
post() { curl -sf "$BASE/orgs/$ORG/$1" -H "$AUTH" -H 'Content-Type: application/json' -d "$2"; }
ADDRESS=$(post sender-addresses '{"name":"Main","attContact":"Mette","address1":"Industrivej 12","zipcode":"8000","city":"Aarhus","phone":"+4512345678","countryCode":"DK","state":"Midtjylland","email":"w@example.com"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
CARRIER=$(post carriers "{\"name\":\"Sandbox\",\"carrierSlug\":\"sandbox\",\"config\":{},\"senderAddressId\":\"$ADDRESS\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')

if [ "${WEBHOOK:-0}" = 1 ]; then
  SINK_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  python3 - "$SINK_PORT" <<'PY' &
import asyncio, sys
async def handle(reader, writer):
    while True:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        await reader.readexactly(length)
        writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        await writer.drain()
async def main():
    server = await asyncio.start_server(lambda r, w: handle(r, w), "127.0.0.1", int(sys.argv[1]))
    await asyncio.sleep(600)
asyncio.run(main())
PY
  SINK=$!
  trap 'kill "$SERVER" "$SINK" 2>/dev/null || true; rm -rf "$WORK"' EXIT
  post webhooks "{\"name\":\"bench\",\"url\":\"http://127.0.0.1:$SINK_PORT/hook\",\"events\":[\"shipment.created\"]}" >/dev/null
fi

# A ~1.1 KB shipment body, like the peer figures in shared/NOTES.md.
cat > shipment.json <<JSON
{"reference":"BENCH-1","senderAddressId":"$ADDRESS","type":"outbound",
 "parties":[{"type":"receiver","name":"Jane Doe","address1":"Storgatan 1","postalCode":"11122","city":"Stockholm","countryCode":"SE","email":"jane@example.com","phone":"+46701234567","attention":"Reception, 2nd floor"}],
 "carrierSettings":{"carrierId":"$CARRIER","productId":"standard","services":["signature"],"additionalParameters":{"note":"fragile"}},
 "parcels":[{"weight":2.5,"weightUnit":"kg","dimensions":{"length":30,"width":20,"height":10},
   "orderLines":[{"sku":"TS-1","quantity":2,"description":"T-shirt, organic cotton, size M","unitPrice":100.0,"currency":"DKK","countryOfOrigin":"DK","tarrifNumber":"610910"},
                 {"sku":"MUG-7","quantity":1,"description":"Enamel mug, blue","unitPrice":60.0,"currency":"DKK","countryOfOrigin":"DK","tarrifNumber":"732394"},
                 {"sku":"CAP-3","quantity":1,"description":"Baseball cap, black","unitPrice":80.0,"currency":"DKK","countryOfOrigin":"PT","tarrifNumber":"650500"}]}],
 "termOfTrade":"DAP","servicePointId":"SP-1234"}
JSON
cat > post.lua <<LUA
wrk.method = "POST"
wrk.body = io.open("shipment.json"):read("a")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA
cat > get.lua <<LUA
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA

run() {
  echo "== $1"
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$2" "$3" | grep -E "Requests/sec|Non-2xx|99%|50%"
}
run "create shipment (POST, ~1.1 KB body)" post.lua "$BASE/orgs/$ORG/shipments"
SHIPMENT=$(post shipments "$(cat shipment.json)" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
TOTAL=$(curl -sf "$BASE/orgs/$ORG/shipments?limit=1" -H "$AUTH" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
run "get shipment" get.lua "$BASE/orgs/$ORG/shipments/$SHIPMENT"
run "list shipments (20 of $TOTAL, with total)" get.lua "$BASE/orgs/$ORG/shipments"
run "health" get.lua "$BASE/health"
