#!/usr/bin/env bash
# Serves the same 1 GiB file from manashiki-registry (storage origin, sendfile) and from
# nginx on loopback, downloads it with curl to /dev/null several times from each, and prints
# the best throughput of each and the ratio (target: registry >= 0.5x nginx).
#
# Usage: examples/registry/bench-vs-nginx.sh [runs]      (from the repository root)
# Env:   SIZE (bytes, default 1073741824), CONFIG (debug|release, default release),
#        REGISTRY_BIN (use this binary instead of building).
# Needs: curl, python3, nginx (installed with apt-get if missing and running as root).
set -euo pipefail

RUNS="${1:-3}"
SIZE="${SIZE:-1073741824}"
CONFIG="${CONFIG:-release}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/manashiki-bench.XXXXXX")"
REGISTRY_PID=""
NGINX_PID=""

cleanup() {
    [ -n "$REGISTRY_PID" ] && kill "$REGISTRY_PID" 2>/dev/null && wait "$REGISTRY_PID" 2>/dev/null || true
    [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "installing nginx (apt-get)..." >&2
        apt-get install -y nginx >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y nginx >/dev/null; }
    else
        echo "nginx is not installed; run as root or: sudo apt-get install nginx" >&2
        exit 1
    fi
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

if [ -n "${REGISTRY_BIN:-}" ]; then
    BIN="$REGISTRY_BIN"
else
    echo "building manashiki-registry ($CONFIG)..." >&2
    (cd "$ROOT" && swift build -c "$CONFIG" --product manashiki-registry >&2)
    BIN="$(cd "$ROOT" && swift build -c "$CONFIG" --show-bin-path)/manashiki-registry"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# --- registry -------------------------------------------------------------------------------
KEY="mk_pub_bench_0123456789abcdefghij"
mkdir -p "$WORK/catalog" "$WORK/cache"
cat > "$WORK/catalog/catalog.json" <<JSON
{"keys": [{"secret": "$KEY"}],
 "models": [{"modelId": "bench-1g", "version": "1.0.0", "artifact": {"generated": {"size": $SIZE, "seed": 1}},
             "compatibility": {"platforms": ["linux"]}}]}
JSON
echo "starting the registry (materialises the $SIZE-byte artifact on first use)..." >&2
"$BIN" serve "$WORK/catalog" --port 0 --cache-dir "$WORK/cache" --url-ttl 3600 \
    --ready-file "$WORK/ready.json" > "$WORK/registry.log" 2>&1 &
REGISTRY_PID=$!
for _ in $(seq 1 1200); do [ -s "$WORK/ready.json" ] && break; sleep 0.1; done
[ -s "$WORK/ready.json" ] || { echo "the registry did not start:" >&2; cat "$WORK/registry.log" >&2; exit 1; }
API="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["apiBaseURL"])' "$WORK/ready.json")"
REGISTRY_URL="$(curl -fsS -H "X-API-Key: $KEY" "$API/api/download/bench-1g" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["downloadUrl"])')"
FILE="$WORK/cache/generated-v1-$SIZE-1.bin"
[ -f "$FILE" ] || { echo "artifact not found at $FILE" >&2; exit 1; }

# --- nginx ----------------------------------------------------------------------------------
# nginx's worker may run as an unprivileged user: let it read the file.
chmod a+rx "$WORK" "$WORK/cache" && chmod a+r "$FILE"
NGINX_PORT="$(free_port)"
mkdir -p "$WORK/nginx"
cat > "$WORK/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 64; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    types { application/octet-stream bin; }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WORK/cache;
    }
}
CONF
"$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
NGINX_PID=$!
NGINX_URL="http://127.0.0.1:$NGINX_PORT/$(basename "$FILE")"
for _ in $(seq 1 100); do curl -fsS -o /dev/null -r 0-0 "$NGINX_URL" 2>/dev/null && break; sleep 0.1; done

# --- measure --------------------------------------------------------------------------------
# Warm the page cache so both read the file from memory.
cat "$FILE" > /dev/null

best() { # url -> best bytes/second over $RUNS runs (all checked for the full size)
    local best=0 speed size
    for _ in $(seq 1 "$RUNS"); do
        read -r speed size < <(curl -fsS -o /dev/null -w '%{speed_download} %{size_download}\n' "$1")
        [ "$size" = "$SIZE" ] || { echo "short download from $1: $size bytes" >&2; exit 1; }
        best="$(python3 -c "print(max(float('$best'), float('$speed')))")"
    done
    echo "$best"
}

REG="$(best "$REGISTRY_URL")"
NGX="$(best "$NGINX_URL")"
python3 - "$REG" "$NGX" "$SIZE" "$RUNS" <<'PY'
import sys
reg, ngx, size, runs = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
mib = 1024 * 1024
print(f"file: {size} bytes, best of {runs} curl runs to /dev/null each")
print(f"manashiki-registry: {reg / mib:9.1f} MiB/s")
print(f"nginx:              {ngx / mib:9.1f} MiB/s")
print(f"ratio registry/nginx: {reg / ngx:.2f}x  (target >= 0.5x: {'met' if reg / ngx >= 0.5 else 'NOT met'})")
PY
