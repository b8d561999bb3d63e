#!/usr/bin/env bash
# End-to-end test of the MCP endpoint with the official Python MCP SDK as the client
# (tests/mcp/sdk_python.py): OAuth through the SDK's provider (registration, sign-in and consent
# over HTTP, code exchange), both connect modes ("auto" → 2026-07-28 via server/discover,
# "legacy" → initialize), tools, and a token refresh after the access token expired. Starts the
# binary on a loopback port with a fresh data directory and a 3 s access-token lifetime.
#
#   .ci/mcp-sdk.sh [BINARY]        (default target/release/shipbase)
#
# The SDK goes to a virtualenv under ~/.cache/shipbase-mcp-sdk, (re)installed from
# tests/mcp/requirements.txt only when that file's sha256 changes. MCP_SDK_VERBOSE=1 prints
# every HTTP exchange of the SDK's client.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin=$(realpath "${1:-target/release/shipbase}")
[ -x "$bin" ] || { echo "mcp-sdk.sh: no executable binary at $bin" >&2; exit 1; }

venv="$HOME/.cache/shipbase-mcp-sdk"
stamp=$(sha256sum tests/mcp/requirements.txt | cut -d' ' -f1)
if [ "$(cat "$venv/.stamp" 2>/dev/null || true)" != "$stamp" ] || ! "$venv/bin/python" -c 'import mcp' 2>/dev/null; then
  echo "== installing tests/mcp/requirements.txt into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/mcp/requirements.txt
  echo "$stamp" > "$venv/.stamp"
fi

export SHIPBASE_LOG__LEVEL=${SHIPBASE_LOG__LEVEL:-info} NO_COLOR=1
source .ci/lib.sh
SHIPBASE_OAUTH__ACCESS_TOKEN_TTL_SECONDS=3 server_start mcp-sdk.sh "$bin" --base-url "$base"

email=sdk@example.com
pw="sdk-test-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
"$bin" --data-dir "$work/data" org create --name "SDK Shop" --slug sdk --email "$email" --user-name SDK \
  --json > "$work/org.json"
org=$("$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["org"]["id"])' < "$work/org.json")
printf '%s\n' "$pw" | "$bin" --data-dir "$work/data" user set-password --email "$email" --password-stdin

echo "== Python MCP SDK ($("$venv/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))')) against $base/mcp"
status=0
BASE_URL="$base" EMAIL="$email" PASSWORD="$pw" ORG_ID="$org" "$venv/bin/python" tests/mcp/sdk_python.py || status=$?
if [ "$status" -ne 0 ]; then
  server_log
fi
exit "$status"
