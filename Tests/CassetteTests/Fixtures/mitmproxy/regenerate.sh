#!/usr/bin/env bash
# Regenerates httpbin.har: real traffic to httpbin, captured by mitmproxy (a tool nobody here
# wrote) in reverse-proxy mode with its HAR dump option. Needs Python 3 and curl; installs
# mitmproxy, httpbin and gunicorn from PyPI into a throw-away venv. Run from anywhere:
#
#   bash Tests/CassetteTests/Fixtures/mitmproxy/regenerate.sh
#
# MitmproxyHARTests imports the file and replays every entry offline.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check mitmproxy==11.0.2 httpbin==0.10.4 gunicorn==27.0.1

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Waits until something accepts connections on port $1 (a bare TCP connect, so no request is captured).
wait_for() {
  for _ in $(seq 1 100); do
    python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()' "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing on port $1" >&2; exit 1
}

httpbin_port=$(free_port)
"$work/venv/bin/gunicorn" --bind "127.0.0.1:$httpbin_port" --workers 2 --log-level warning httpbin:app &
pids+=($!)
wait_for "$httpbin_port"

proxy_port=$(free_port)
"$work/venv/bin/mitmdump" --quiet --listen-host 127.0.0.1 --listen-port "$proxy_port" \
  --mode "reverse:http://127.0.0.1:$httpbin_port" --set hardump="$work/httpbin.har" &
mitm_pid=$!
pids+=($mitm_pid)
wait_for "$proxy_port"

base="http://127.0.0.1:$proxy_port"
get() { curl -s -o /dev/null "$@"; }
get -H 'Accept: application/json' "$base/get?name=Ada&tags=a&tags=b"
get -X POST -H 'Content-Type: application/json' --data '{"name":"Ada","tags":["a","b"]}' "$base/post"
get -X POST --data-urlencode 'name=Ada Lovelace' --data-urlencode 'lang=en' "$base/post"
get -X PUT -H 'Content-Type: text/plain' --data 'plain text body' "$base/put"
get "$base/bytes/2048?seed=42"
get "$base/image/png"
get --compressed "$base/gzip"
get "$base/status/418"
get "$base/status/204"
get "$base/response-headers?X-Multi=one&X-Multi=two"
get "$base/html"
get "$base/redirect-to?url=%2Fget&status_code=302"
get -H 'User-Agent: cassette-fixture' "$base/headers"

# mitmproxy writes the HAR when it shuts down.
kill -INT "$mitm_pid"
wait "$mitm_pid" || true
test -s "$work/httpbin.har"
cp "$work/httpbin.har" "$here/httpbin.har"
echo "wrote $here/httpbin.har"
