#!/usr/bin/env bash
# Shipbase benchmark, one command on a fresh clone: builds the release binary and the raw
# SQLite ceiling bench, installs wrk and hey from Debian when missing, and runs benches/run.py,
# which measures every row of benches/results.md (creates at synchronous=full and normal, get,
# lists at 10k and 1M shipments, booking with a PDF label, the quote, /health, p99 at half the
# peak create rate, peak RSS, start-up on the 1M database) and rewrites that file.
#
#   benches/run.sh [seconds per run, default 10] [connections, default 64]
#
# SHIPBASE_BIN=/path/to/shipbase measures that binary instead of building target/release;
# LARGE=100000 seeds a smaller "large" organization for a quick run; OUT=FILE writes elsewhere;
# POSTGRES=URL (or a throwaway cluster .ci/postgres.sh starts) adds the PostgreSQL rows.
# Traffic goes only to 127.0.0.1; every run is bounded; the data directory is removed after.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

need=()
command -v wrk >/dev/null || need+=(wrk)
command -v hey >/dev/null || need+=(hey)
if [ ${#need[@]} -gt 0 ]; then
  as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ -z "${SHIPBASE_BIN:-}" ]; then
  cargo build --release --locked -q
fi
ceiling=$(mktemp)
trap 'rm -f "$ceiling"' EXIT
echo "== raw SQLite insert ceiling"
cargo bench --locked -q --bench sqlite_ceiling -- 3 | tee "$ceiling"

# The PostgreSQL rows run on POSTGRES (a server URL) or on a throwaway cluster with PostgreSQL's
# durable defaults; NO_POSTGRES=1 leaves them out.
if [ -z "${POSTGRES:-}" ] && [ -z "${NO_POSTGRES:-}" ]; then
  pgdir=$(mktemp -d)
  POSTGRES=$(PG_DURABLE=1 .ci/postgres.sh start "$pgdir")
  trap 'rm -f "$ceiling"; .ci/postgres.sh stop "$pgdir"; rm -rf "$pgdir"' EXIT
fi
export POSTGRES="${POSTGRES:-}"

BIN="$(realpath "${SHIPBASE_BIN:-target/release/shipbase}")" \
SECONDS_PER_RUN="${1:-10}" CONNECTIONS="${2:-64}" CEILING="$ceiling" \
  python3 benches/run.py
