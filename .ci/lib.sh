# What the steps of .ci/run share; each step sources it. Not run on its own.
#
# CI_WORK is the run's scratch folder: .ci/run makes one and passes it to every step; a step run
# alone makes its own (and removes it on exit). What one step leaves for a later one (the venv,
# the shards' ledgers and results) lives there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ci_own_work=""
if [ -z "${CI_WORK:-}" ]; then
  CI_WORK=$(mktemp -d)
  ci_own_work=1
fi
export CI_WORK
mkdir -p "$CI_WORK"
# On exit: the upstreams stopped if a step started them, and a scratch folder of the step's own removed.
httpbin_pid=""
rpc_pid=""
ci_cleanup() {
  if [ -n "$httpbin_pid" ]; then kill "$httpbin_pid" 2>/dev/null || true; fi
  if [ -n "$rpc_pid" ]; then kill "$rpc_pid" 2>/dev/null || true; fi
  if [ -n "$ci_own_work" ]; then rm -rf "$CI_WORK"; fi
}
trap ci_cleanup EXIT

# Hosted CI sets CI, which makes every cassette default to record mode `none`. Set it here too,
# so that a test which needs to record says so (`environment: [:]`) and a local run fails the
# same way CI would.
export CI=true

# The README's test command (.ci/run sets it; a step run alone uses the same).
export CI_TEST_COMMAND=${CI_TEST_COMMAND:-swift test}

# The switches the tests read (CI and every CASSETTE_ variable), each as TEST_RUNNER_NAME=value:
# `xcodebuild test` hands a test process only the variables with that prefix, the prefix removed
# (its man page); a plain CI=true never reaches a test on a simulator. One per line.
test_runner_env() {
  env | while IFS= read -r line; do
    case "$line" in
      CI=* | CASSETTE_*=*) printf 'TEST_RUNNER_%s\n' "$line" ;;
    esac
  done
}

# The Swift that `swift` runs, as major.minor (6.3).
ci_swift_version() {
  swift --version 2>&1 | sed -nE 's/.*Swift version ([0-9]+\.[0-9]+).*/\1/p' | head -1
}

# Fails the step with a message on standard error.
fail() {
  echo "error: $*" >&2
  exit 1
}

# The Python tools from PyPI (httpbin, gunicorn, websockets, jsonschema, pyyaml, connectrpc), in one venv per
# run, made the first time a step asks; CASSETTE_PYTHON points the WebSocket tests at it.
ci_venv() {
  [ -x "$CI_WORK/venv/bin/python" ] || python3 -m venv "$CI_WORK/venv"
  # Installed when one is missing: a venv kept from an earlier run gets what was added since.
  if ! "$CI_WORK/venv/bin/python" -c 'import httpbin, gunicorn, yaml, websockets, jsonschema, connectrpc' 2>/dev/null; then
    "$CI_WORK/venv/bin/pip" install --quiet --disable-pip-version-check httpbin gunicorn pyyaml websockets jsonschema "connectrpc==0.13.*"
  fi
  export CASSETTE_PYTHON="$CI_WORK/venv/bin/python"
}

# Debian's package $1 when the command $2 (default $1) is missing.
ci_apt() {
  if ! command -v "${2:-$1}" >/dev/null 2>&1; then
    echo "installing $1 from Debian's packages"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" >/dev/null
  fi
}

# gunicorn serving the WSGI application $1 (module:name, from the folder $2) on a free port of
# 127.0.0.1, its log in $CI_WORK/$3.log; returns once GET $4 answers (any status). Sets
# wsgi_pid and wsgi_url.
wsgi_start() {
  ci_venv
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  "$CI_WORK/venv/bin/gunicorn" --chdir "$2" --bind "127.0.0.1:$port" --worker-class gthread --threads 16 --workers 1 \
    "$1" >"$CI_WORK/$3.log" 2>&1 &
  wsgi_pid=$!
  wsgi_url="http://127.0.0.1:$port"
  python3 - "$wsgi_url$4" <<'PY'
import sys, time, urllib.error, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1).read()
        sys.exit(0)
    except urllib.error.HTTPError:
        sys.exit(0)
    except Exception:
        time.sleep(0.2)
sys.exit(f"nothing answered at {sys.argv[1]}")
PY
  echo "$1 (PID $wsgi_pid) answers at $wsgi_url"
}

# Stops the server with PID $1, and checks that nothing answers at its URL $2 any more.
wsgi_stop() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  if python3 -c "import socket, sys, urllib.parse; u = urllib.parse.urlsplit(sys.argv[1]); socket.create_connection((u.hostname, u.port), timeout=1)" \
    "$2" 2>/dev/null; then
    fail "something still answers at $2 after its server stopped"
  fi
}

# The live phase's upstreams, until upstreams_stop: httpbin (CASSETTE_HTTPBIN_URL) and an RPC
# server made with connectrpc, .ci/rpc_upstream.py (CASSETTE_RPC_URL).
upstreams_start() {
  httpbin_start
  wsgi_start rpc_upstream:app .ci rpc-upstream /cassette.v1.Greeter/Greet
  rpc_pid=$wsgi_pid
  export CASSETTE_RPC_URL="$wsgi_url"
}

upstreams_stop() {
  httpbin_stop
  [ -n "$rpc_pid" ] || return 0
  wsgi_stop "$rpc_pid" "$CASSETTE_RPC_URL"
  rpc_pid=""
}

# httpbin on a free port of 127.0.0.1, until httpbin_stop; sets CASSETTE_HTTPBIN_URL.
httpbin_start() {
  wsgi_start httpbin:app . httpbin /get
  httpbin_pid=$wsgi_pid
  export CASSETTE_HTTPBIN_URL="$wsgi_url"
}

# Stops httpbin, and checks that nothing answers on its port any more.
httpbin_stop() {
  [ -n "$httpbin_pid" ] || return 0
  wsgi_stop "$httpbin_pid" "$CASSETTE_HTTPBIN_URL"
  httpbin_pid=""
}
