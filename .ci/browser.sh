#!/usr/bin/env bash
# Real-browser end-to-end tests: headless Chromium (Debian's, driven by playwright-core) signs in,
# consents to an OAuth client for one of two organizations, and disconnects it again under
# Apps & integrations (tests/browser/flow.mjs); then works a shop's day in the workbench at /app
# (tests/browser/workbench.mjs: its header lists what it covers; it brings its own raw printer
# and webhook receiver on loopback). Starts the release binary on a loopback port
# with a fresh data directory; screenshots go to target/browser/.
#
#   .ci/browser.sh [BINARY]        (default target/release/shipbase)
#
# Installs what it needs when missing: the chromium package, and tests/browser's npm packages
# into ~/.cache/shipbase-browser (reinstalled only when package-lock.json changes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

bin=$(realpath "${1:-target/release/shipbase}")
[ -x "$bin" ] || { echo "browser.sh: no executable binary at $bin" >&2; exit 1; }

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if [ ! -x /usr/bin/chromium ]; then
  echo "== installing chromium"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi

cache="$HOME/.cache/shipbase-browser"
stamp=$(sha256sum tests/browser/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$cache/.stamp" 2>/dev/null || true)" != "$stamp" ] || [ ! -d "$cache/node_modules" ]; then
  echo "== npm ci (tests/browser)"
  mkdir -p "$cache"
  rm -f "$cache/.stamp"
  cp tests/browser/package.json tests/browser/package-lock.json "$cache/"
  (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$stamp" > "$cache/.stamp"
fi
# The flows run next to their node_modules, so that `import 'playwright-core'` resolves.
cp tests/browser/flow.mjs tests/browser/workbench.mjs "$cache/"

export SHIPBASE_LOG__LEVEL=${SHIPBASE_LOG__LEVEL:-info} NO_COLOR=1
source .ci/lib.sh
# Printers and webhooks on loopback: the workbench flow prints on its own raw 9100 listener and
# receives webhooks on its own HTTP listener; a failed delivery is retried after 5 s × 0.01.
# E-mail goes to a port the workbench flow listens on with its own SMTP sink (until it does, a
# message is retried after 5 s × 0.001).
smtp_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SHIPBASE_PRINTERS__ALLOW_LOOPBACK=true SHIPBASE_WEBHOOKS__ALLOW_PRIVATE_TARGETS=true \
  SHIPBASE_WEBHOOKS__RETRY_SCALE=0.01 SHIPBASE_SMTP__URL="smtp://127.0.0.1:$smtp_port" \
  SHIPBASE_SMTP__FROM=noreply@wares.test SHIPBASE_SMTP__RETRY_SCALE=0.001 \
  server_start browser.sh "$bin" --base-url "$base"

# One owner of two organizations, so that the consent page offers a choice.
email=owner@acme.test
password="browser-test-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
"$bin" --data-dir "$work/data" org create --name "Acme Shop" --slug acme --email "$email" \
  --user-name "Ada Owner" --json > "$work/acme.json"
"$bin" --data-dir "$work/data" org create --name "Nordic Outdoor" --slug nordic --email "$email" --attach-existing-user \
  --user-name "Ada Owner" --json > "$work/nordic.json"
org=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).org.id)' "$work/acme.json")
printf '%s\n' "$password" | "$bin" --data-dir "$work/data" user set-password --email "$email" --password-stdin

shots="$repo/target/browser"
mkdir -p "$shots"
echo "== browser flow against $base"
status=0
(cd "$cache" && BASE_URL="$base" EMAIL="$email" PASSWORD="$password" ORG_ID="$org" SCREENSHOTS="$shots" \
  node flow.mjs) || status=$?
if [ "$status" -ne 0 ]; then
  server_log
  exit "$status"
fi

# The workbench (DESIGN §20): a third organization with one owner, an API token, a member and
# an admin.
wb_email=shop@wares.test
wb_member=packer@wares.test
wb_admin=lead@wares.test
"$bin" --data-dir "$work/data" org create --name "Wares & Co" --slug wares --email "$wb_email" \
  --user-name "Wanda Owner" --json > "$work/wares.json"
wb_org=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).org.id)' "$work/wares.json")
printf '%s\n' "$password" | "$bin" --data-dir "$work/data" user set-password --email "$wb_email" --password-stdin
"$bin" --data-dir "$work/data" user add --org "$wb_org" --email "$wb_member" --name "Pat Packer" --role member > /dev/null
printf '%s\n' "$password" | "$bin" --data-dir "$work/data" user set-password --email "$wb_member" --password-stdin
"$bin" --data-dir "$work/data" user add --org "$wb_org" --email "$wb_admin" --name "Lee Lead" --role admin > /dev/null
printf '%s\n' "$password" | "$bin" --data-dir "$work/data" user set-password --email "$wb_admin" --password-stdin
wb_token=$("$bin" --data-dir "$work/data" token create --org "$wb_org" --name "browser test" --json \
  | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).token))')
echo "== workbench flow against $base"
(cd "$cache" && BASE_URL="$base" EMAIL="$wb_email" PASSWORD="$password" ORG_ID="$wb_org" TOKEN="$wb_token" \
  MEMBER_EMAIL="$wb_member" MEMBER_PASSWORD="$password" ADMIN_EMAIL="$wb_admin" ADMIN_PASSWORD="$password" \
  SMTP_PORT="$smtp_port" SCREENSHOTS="$shots/workbench" \
  node workbench.mjs) || status=$?
if [ "$status" -ne 0 ]; then
  server_log
fi
exit "$status"
