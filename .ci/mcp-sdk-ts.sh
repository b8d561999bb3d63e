#!/usr/bin/env bash
# End-to-end test of the MCP endpoint with the official TypeScript MCP SDK (npm
# @modelcontextprotocol/sdk, 1.x) as the client (tests/mcp/sdk_ts/sdk_ts.mjs): the SDK's Client over
# its StreamableHTTPClientTransport in the era that SDK line speaks (initialize → 2025-11-25, with an
# Mcp-Session-Id), tools/list, list_available_carriers checked by the SDK against its outputSchema,
# a sender address, a sandbox carrier, a booked 2-parcel shipment with its labels as resource links
# and resources/read of one, and an unknown argument. No OAuth provider in the SDK: the agent signs
# in through the browser flow with benches/agent_token.py and the transport sends its access token.
# Starts the binary on a loopback port with a fresh data directory.
#
#   .ci/mcp-sdk-ts.sh [BINARY]        (default target/release/shipbase)
#
# The SDK is pinned in tests/mcp/sdk_ts/package-lock.json and installed with `npm ci` into
# ~/.cache/shipbase-mcp-sdk-ts, again only when package.json or the lock file changes. It runs on
# the system's Node (the locked packages need Node >= 20); npm comes from apt when missing.
# MCP_SDK_VERBOSE=1 prints every HTTP exchange of the transport.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin=$(realpath "${1:-target/release/shipbase}")
[ -x "$bin" ] || { echo "mcp-sdk-ts.sh: no executable binary at $bin" >&2; exit 1; }

# --- The TypeScript SDK, pinned by tests/mcp/sdk_ts/package-lock.json ---
cache="$HOME/.cache/shipbase-mcp-sdk-ts"
sdk_pkg="$cache/node_modules/@modelcontextprotocol/sdk/package.json"
stamp=$(cat tests/mcp/sdk_ts/package.json tests/mcp/sdk_ts/package-lock.json | sha256sum | cut -d' ' -f1)
if [ "$(cat "$cache/.stamp" 2>/dev/null || true)" != "$stamp" ] || [ ! -f "$sdk_pkg" ]; then
  if ! command -v npm > /dev/null; then
    as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    echo "== installing npm"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q npm
  fi
  echo "== npm ci (tests/mcp/sdk_ts: @modelcontextprotocol/sdk)"
  mkdir -p "$cache"
  rm -rf "$cache/.stamp" "$cache/node_modules"
  cp tests/mcp/sdk_ts/package.json tests/mcp/sdk_ts/package-lock.json "$cache/"
  # --ignore-scripts: nothing in the SDK's tree needs an install script.
  (cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$stamp" > "$cache/.stamp"
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || { echo "mcp-sdk-ts.sh: Node $(node --version) is too old (the locked packages need >= 20)" >&2; exit 1; }
sdk_version=$(node -p "require(process.argv[1]).version" "$sdk_pkg")

# --- Shipbase on a loopback port with a fresh data directory ---
export SHIPBASE_LOG__LEVEL=${SHIPBASE_LOG__LEVEL:-info} NO_COLOR=1
source .ci/lib.sh
server_start mcp-sdk-ts.sh "$bin" --base-url "$base"

# --- An organization, its owner's password, and an agent's OAuth access token ---
email=sdk-ts@example.com
pw="sdk-ts-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
"$bin" --data-dir "$work/data" org create --name "SDK TS Shop" --slug sdk-ts --email "$email" --user-name "SDK TS" \
  --json > "$work/org.json"
org=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["org"]["id"])' < "$work/org.json")
printf '%s\n' "$pw" | "$bin" --data-dir "$work/data" user set-password --email "$email" --password-stdin
if ! token=$(python3 benches/agent_token.py "$base" "$email" "$pw" "$org"); then
  echo "mcp-sdk-ts.sh: the OAuth sign-in (benches/agent_token.py) failed" >&2; server_log; exit 1
fi

# --- The test: a copy of the .mjs next to a link to the cached node_modules, so that Node resolves
# the SDK from the cache (ES modules do not look at NODE_PATH) ---
mkdir "$work/sdk_ts"
cp tests/mcp/sdk_ts/sdk_ts.mjs "$work/sdk_ts/"
ln -s "$cache/node_modules" "$work/sdk_ts/node_modules"
echo "== TypeScript MCP SDK ($sdk_version, Node $(node --version)) against $base/mcp"
status=0
BASE_URL="$base" TOKEN="$token" ORG_ID="$org" node "$work/sdk_ts/sdk_ts.mjs" || status=$?
if [ "$status" -ne 0 ]; then
  server_log
fi
exit "$status"
