# Shared by the .ci scripts that start the release binary: a work directory removed on exit,
# a free loopback port, and a server started in the background and waited for.
#
#   source .ci/lib.sh
#   server_start NAME BINARY [serve arguments…]   # sets $work, $port, $base, $server
#
# The server listens on 127.0.0.1:$port with its data in $work/data and its log in
# $work/server.log; it is stopped, and $work removed, when the script exits. server_start fails
# (showing the log) when the server exits or has not answered /health within 30 s.

work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"

server_log() {
  echo "== server log (last 60 lines)"
  tail -60 "$work/server.log" || true
}

server_start() {
  local name=$1 bin=$2
  shift 2
  "$bin" serve --listen "127.0.0.1:$port" --data-dir "$work/data" "$@" > "$work/server.log" 2>&1 &
  server=$!
  local deadline=$((SECONDS + 30))
  until curl -fs -o /dev/null "$base/health"; do
    if ! kill -0 "$server" 2>/dev/null; then
      echo "$name: the server exited before it answered /health" >&2; server_log; exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "$name: no 200 from $base/health within 30 s" >&2; server_log; exit 1
    fi
    sleep 0.1
  done
}
