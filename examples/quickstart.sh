#!/usr/bin/env bash
# Quick start: build, start the bundled development registry, and sync models from it.
#
#   ./examples/quickstart.sh
#
# Everything happens under ./quickstart/ (delete it to start over). The key below is a fake
# key of the local development registry (examples/registry/catalog.json), not a real one.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$PWD/quickstart"
rm -rf "$work"
mkdir -p "$work"

echo "==> swift build -c release"
swift build -c release --product manashiki-sync >/dev/null
swift build -c release --product manashiki-registry >/dev/null
bin="$(swift build -c release --show-bin-path)"

echo "==> starting the development registry (examples/registry) on free ports"
"$bin/manashiki-registry" serve examples/registry --port 0 --ready-file "$work/registry.json" \
  >"$work/registry.log" 2>&1 &
registry_pid=$!
cleanup() { kill "$registry_pid" 2>/dev/null || true; wait "$registry_pid" 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for _ in $(seq 1 100); do
  [ -s "$work/registry.json" ] && break
  kill -0 "$registry_pid" 2>/dev/null || { cat "$work/registry.log"; echo "the registry did not start" >&2; exit 1; }
  sleep 0.1
done
[ -s "$work/registry.json" ] || { echo "the registry did not become ready" >&2; exit 1; }
api="$(sed -E 's/.*"apiBaseURL":"([^"]+)".*/\1/' "$work/registry.json")"
echo "    registry API at $api"

cat >"$work/manashiki.json" <<JSON
{
  "schemaVersion": 1,
  "registry": {"baseURL": "$api", "apiKey": {"env": "MANASHIKI_API_KEY"}},
  "store": {"directory": "models", "concurrency": 2, "prune": {"mode": "tracked", "maxDeletes": 5}},
  "models": [
    {"id": "whisper-tiny-en", "version": "^1.0"},
    {"id": "distil-small-en"}
  ]
}
JSON

export MANASHIKI_API_KEY="mk_pub_demo_0123456789abcdefghij"   # the demo registry's fake key
sync=("$bin/manashiki-sync" --manifest "$work/manashiki.json")

echo; echo "==> manashiki-sync plan   (exit 10: changes pending)"
"${sync[@]}" plan || [ $? -eq 10 ]

echo; echo "==> manashiki-sync sync"
"${sync[@]}" sync

echo; echo "==> manashiki-sync sync   (again: nothing to do)"
"${sync[@]}" sync

echo; echo "==> simulated reinstall: the store is deleted, then restored"
rm -rf "$work/models"
"${sync[@]}" sync

echo; echo "==> manashiki-sync verify"
"${sync[@]}" verify

echo; echo "==> manashiki-sync status"
"${sync[@]}" status

echo; echo "Done. Models are in $work/models; try: $bin/manashiki-sync --manifest $work/manashiki.json sync --json"
