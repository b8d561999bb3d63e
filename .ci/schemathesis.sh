#!/usr/bin/env bash
# Fuzzes the REST API against its own OpenAPI document with schemathesis: every answer must be
# documented (status code and schema) and no input may cause a 5xx. Starts the release binary
# on a loopback port with a fresh data directory and a seeded organization.
#
#   .ci/schemathesis.sh [BINARY]        (default target/release/shipbase)
#
# Environment: SCHEMATHESIS_MAX_TIME (seconds, default 240), SCHEMATHESIS_SEED (default 20261123).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin=$(realpath "${1:-target/release/shipbase}")
venv="$HOME/.cache/shipbase-schemathesis"
version=4.32.5
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$version"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi

# Rate limiting off: the fuzzer sends far more than a client would, and 429s would hide answers.
export SHIPBASE_LIMITS__RATE_PER_SECOND=0 SHIPBASE_LOG__LEVEL=warn
source .ci/lib.sh
"$bin" --data-dir "$work/data" org create --name Fuzz --slug fuzz --email fuzz@example.com \
  --user-name "Fuzz Owner" --json --init > "$work/org.json"
org=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["org"]["id"])' < "$work/org.json")
token=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])' < "$work/org.json")
server_start schemathesis.sh "$bin"

# A few real resources, so that some generated requests reach past the 404s.
post() { curl -sS --fail-with-body "$base/orgs/$org/$1" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d "$2"; }
id() { python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'; }
address=$(post sender-addresses '{"name": "Main", "attContact": "Ada", "address1": "Industrivej 12",
  "zipcode": "8000", "city": "Aarhus", "phone": "+4512345678", "countryCode": "DK", "state": "Midtjylland",
  "email": "warehouse@example.com"}' | id)
carrier=$(post carriers "{\"name\": \"Sandbox\", \"carrierSlug\": \"sandbox\", \"config\": {},
  \"senderAddressId\": \"$address\"}" | id)
post shipments "{\"reference\": \"FUZZ-1\", \"senderAddressId\": \"$address\", \"type\": \"outbound\",
  \"parties\": [{\"type\": \"receiver\", \"name\": \"Jane\", \"address1\": \"Storgatan 1\",
  \"postalCode\": \"11122\", \"city\": \"Stockholm\", \"countryCode\": \"SE\"}],
  \"carrierSettings\": {\"carrierId\": \"$carrier\", \"productId\": \"standard\"},
  \"parcels\": [{\"weight\": 1.2}]}" > /dev/null

# orgId is fixed to the seeded organization (a random one is only ever 404); revoking API
# tokens is left out (it would revoke the fuzzer's own credential).
cat > "$work/schemathesis.toml" <<EOF
[parameters]
"path.orgId" = "$org"
EOF

status=0
"$venv/bin/schemathesis" --no-color --config-file "$work/schemathesis.toml" run "$base/openapi.json" \
  --header "Authorization: Bearer $token" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance \
  --exclude-operation-id revoke_api_token \
  --seed "${SCHEMATHESIS_SEED:-20261123}" \
  --max-time "${SCHEMATHESIS_MAX_TIME:-240}" \
  --workers 2 \
  --request-timeout 10 \
  --suppress-health-check all \
  --warnings off \
  || status=$?
if [ "$status" -ne 0 ]; then
  echo "== server log (last 50 lines)"
  tail -50 "$work/server.log"
fi
exit "$status"
