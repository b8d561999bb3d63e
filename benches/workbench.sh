#!/usr/bin/env bash
# The workbench's benchmark row (DESIGN §20): the shipments page of 50 with 1,000,000 shipments
# stored, signed in as its owner; hey with one connection (server time as the client sees it on
# loopback: p50, p99), and each part's weight (HTML, CSS, script).
#
#   benches/workbench.sh [BINARY] [SHIPMENTS]     (default target/release/shipbase, 1000000)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=$(realpath "${1:-target/release/shipbase}")
count=${2:-1000000}
source .ci/lib.sh
"$bin" --data-dir "$work/data" org create --name Bench --slug bench --email bench@example.com \
  --user-name Bench --json --init > "$work/org.json"
org=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["org"]["id"])' "$work/org.json")
"$bin" --data-dir "$work/data" dev seed --org "$org" --shipments "$count"
echo "bench-password-1" | "$bin" --data-dir "$work/data" user set-password --email bench@example.com --password-stdin
server_start workbench.sh "$bin" --base-url "$base"
jar="$work/jar"
csrf=$(curl -s -c "$jar" -b "$jar" "$base/login" | grep -o 'name="csrf_token" value="[^"]*"' | head -1 | sed 's/.*value="//;s/"$//')
curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf_token=$csrf" \
  --data-urlencode "email=bench@example.com" --data-urlencode "password=bench-password-1" "$base/login"
cookie="shipbase_session=$(awk '$6 == "shipbase_session" {print $7}' "$jar")"
carrier=$(curl -s -H "Cookie: $cookie" "$base/app/$org/shipments" | grep -o 'option value="car_[^"]*"' | head -1 | sed 's/.*value="//;s/"$//')
# Searches: a reference (one shipment), a tracking-number-like prefix that names none, a receiver
# name a quarter of the shipments have (the broad case), and the carrier filter (all of them).
for page in shipments "shipments?status=pending" "shipments?q=SEED-500000" "shipments?q=nobody" \
    "shipments?q=jane" "shipments?carrier=$carrier" orders scan settings; do
  url="$base/app/$org/$page"
  weight=$(curl -s -o /dev/null -w '%{size_download}' -H "Cookie: $cookie" "$url")
  n=2000; case "$page" in *q=*|*carrier=*) n=300;; esac
  stats=$(hey -n "$n" -c 1 -H "Cookie: $cookie" "$url" | awk '/50% in/ {p50=$3*1000} /99% in/ {p99=$3*1000} /Requests\/sec/ {rps=$2} END {printf "%.2f ms p50, %.2f ms p99, %.0f req/s", p50, p99, rps}')
  echo "/app/{org}/$page: $stats; HTML $weight bytes"
done
echo "CSS $(wc -c < static/shipbase.css) bytes, script $(wc -c < static/app.js) bytes"
