#!/usr/bin/env bash
# What the document and printer tests (tests/api/documents.rs, printers.rs) run: pdftoppm and
# pdftotext (poppler-utils), zbarimg (zbar-tools), and the IPP printer simulator ippeveprinter
# (cups-ipp-utils), which will not start without a running avahi-daemon (and it needs the
# system D-Bus). Installs what is missing and starts the two daemons when they are not running,
# writing the pid of each it started to STATE_FILE (one per line).
#
#   .ci/print-tools.sh STATE_FILE          install and start
#   .ci/print-tools.sh --stop STATE_FILE   stop the daemons it started (the others stay)
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if [ "${1:-}" = "--stop" ]; then
  state=${2:?a state file}
  [ -f "$state" ] || exit 0
  # avahi first: it is a client of the bus.
  tac "$state" | while read -r pid; do
    [ -n "$pid" ] && as_root kill "$pid" 2>/dev/null || true
  done
  rm -f "$state"
  exit 0
fi
state=${1:-/dev/null}

missing=()
for pair in pdftoppm:poppler-utils pdftotext:poppler-utils zbarimg:zbar-tools \
            ippeveprinter:cups-ipp-utils avahi-daemon:avahi-daemon dbus-daemon:dbus; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${pair%%:*}" ] || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

# A machine made from a snapshot may keep the pid files of daemons that no longer run; both
# daemons refuse to start over a pid file, so a stale one is removed first.
# Zombies (a stopped daemon its parent did not reap) are not running daemons.
if ! pgrep -r R,S,D -x dbus-daemon >/dev/null; then
  as_root mkdir -p /run/dbus
  as_root rm -f /run/dbus/pid
  as_root dbus-daemon --system --fork --print-pid >> "$state"
fi
if ! pgrep -r R,S,D -x avahi-daemon >/dev/null; then
  as_root rm -f /run/avahi-daemon/pid
  as_root /usr/sbin/avahi-daemon -D --no-drop-root --no-rlimits
  started_avahi=1
fi
# avahi-daemon is ready when it answers on the bus.
for _ in $(seq 1 50); do
  /usr/sbin/avahi-daemon --check 2>/dev/null && break
  sleep 0.1
done
if [ -n "${started_avahi:-}" ] && [ -f /run/avahi-daemon/pid ]; then
  cat /run/avahi-daemon/pid >> "$state"
fi
