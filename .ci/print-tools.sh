#!/usr/bin/env bash
# What the document and printer tests (tests/api/documents.rs, printers.rs) run: pdftoppm and
# pdftotext (poppler-utils), zbarimg (zbar-tools), and the IPP printer simulator ippeveprinter
# (cups-ipp-utils), which will not start without a running avahi-daemon (and it needs the
# system D-Bus). Installs what is missing and starts the two daemons when they are not running.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

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
if ! pgrep -x dbus-daemon >/dev/null; then
  as_root mkdir -p /run/dbus
  as_root rm -f /run/dbus/pid
  as_root dbus-daemon --system --fork
fi
if ! pgrep -x avahi-daemon >/dev/null; then
  as_root rm -f /run/avahi-daemon/pid
  as_root /usr/sbin/avahi-daemon -D --no-drop-root --no-rlimits
fi
# avahi-daemon is ready when it answers on the bus.
for _ in $(seq 1 50); do
  /usr/sbin/avahi-daemon --check 2>/dev/null && break
  sleep 0.1
done
