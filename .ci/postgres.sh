#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests (DESIGN §18): installs Debian's
# `postgresql` when initdb is missing, makes a cluster in a new temp directory owned by an
# unprivileged user, and starts it on a free loopback port with trust authentication (nothing
# but this machine can reach it). The server speaks TLS with a certificate from a CA made for
# the run (DIR/ca.pem); the URL it prints names that CA (`sslrootcert`), so every client that
# uses it connects over TLS and checks the certificate.
#
#   .ci/postgres.sh start DIR    # prints the server URL (postgres://…/postgres?sslrootcert=…)
#   PG_DURABLE=1 .ci/postgres.sh start DIR   # with PostgreSQL's durable defaults (benchmarks)
#   .ci/postgres.sh stop DIR
#   .ci/postgres.sh createdb URL NAME   # prints the new database's URL
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$dir" ] || [ ! -x "$dir/initdb" ]; then
    echo "== installing postgresql" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2
    dir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
  echo "$dir"
}

# The cluster runs as this user: PostgreSQL refuses to run as root.
owner() {
  if [ "$(id -u)" -ne 0 ]; then id -un; elif id postgres >/dev/null 2>&1; then echo postgres; else echo nobody; fi
}

as_owner() {
  local user
  user=$(owner)
  if [ "$(id -un)" = "$user" ]; then "$@"; else as_root runuser -u "$user" -- "$@"; fi
}

case "${1:-}" in
  start)
    dir=$2
    bin=$(bindir)
    if ! command -v openssl >/dev/null; then
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q openssl >&2
    fi
    mkdir -p "$dir"
    chown "$(owner)" "$dir" 2>/dev/null || true
    chmod 700 "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$dir/data" -U shipbase -A trust --no-sync -E UTF8 --locale C >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    # A CA for this run, and the server's certificate for 127.0.0.1 signed by it.
    (
      cd "$dir"
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3 \
        -keyout ca.key -out ca.pem -subj "/CN=shipbase test CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout server.key -out server.csr -subj "/CN=127.0.0.1"
      printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > server.ext
      openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3 \
        -extfile server.ext -out server.crt
    ) >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; exit 1; }
    chown "$(owner)" "$dir"/server.key "$dir"/server.crt 2>/dev/null || true
    chmod 600 "$dir/server.key"
    chmod 644 "$dir/ca.pem"
    opts="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=300"
    opts="$opts -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key"
    # fsync off: a throwaway test cluster loses nothing it must keep.
    if [ -z "${PG_DURABLE:-}" ]; then
      opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$opts" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://shipbase@127.0.0.1:$port/postgres?sslrootcert=$dir/ca.pem"
    ;;
  stop)
    dir=$2
    bin=$(bindir)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    ;;
  createdb)
    url=$2 name=$3
    psql "$url" -qAtc "CREATE DATABASE \"$name\"" >/dev/null
    base=${url%%\?*}
    echo "${base%/*}/$name${url#"$base"}"
    ;;
  *)
    echo "usage: $0 start DIR | stop DIR | createdb URL NAME" >&2
    exit 2
    ;;
esac
