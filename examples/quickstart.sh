#!/usr/bin/env bash
# Quick start: build, start the bundled development registry, and sync signed models from it.
#
#   ./examples/quickstart.sh [--port N]
#
# The registry listens on 127.0.0.1:N (API, default 8080; 0 picks free ports) and N+1 (storage)
# and signs its catalog as a TUF repository (--tuf quickstart/tuf: its keys and the root to pin);
# the manifest pins that root (trust.tuf), so only what the registry's keys signed is installed.
# One already serving the demo catalog there (`manashiki-registry serve --port 8080 --tuf
# quickstart/tuf` in another terminal) is used and left running. Everything else happens under
# ./quickstart/ (delete it to start over): the manifest, the key file it names, the store. The key
# is a fake key of the local development registry (examples/registry/catalog.json), not a real one.
# QUICKSTART_BIN=DIR uses the manashiki-sync and manashiki-registry already built in DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

port=8080
while [ $# -gt 0 ]; do
  case $1 in
    --port) port=${2:?--port needs a number}; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "quickstart: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

work="$PWD/quickstart"
key="mk_pub_demo_0123456789abcdefghij"   # the demo registry's fake publishable key
rm -rf "$work"
mkdir -p "$work"

if [ -n "${QUICKSTART_BIN:-}" ]; then
  bin="$QUICKSTART_BIN"
else
  echo "==> swift build -c release"
  swift build -c release --product manashiki-sync >/dev/null
  swift build -c release --product manashiki-registry >/dev/null
  bin="$(swift build -c release --show-bin-path)"
fi
# As a reader types them: relative to this directory when they are under it.
shown_bin="${bin#"$PWD"/}"

# GET $1 from 127.0.0.1:$port with the demo key, into $2 (the body, when given); prints the
# status code ("" if nothing listens). Bash's /dev/tcp: no curl needed on a bare machine.
get() {
  { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 0
  printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: %s\r\nConnection: close\r\n\r\n' "$1" "$key" >&3
  local status_line line
  IFS= read -r -t 5 status_line <&3 || true
  if [ -n "${2:-}" ]; then
    while IFS= read -r -t 5 line <&3 && [ "${line%$'\r'}" != "" ]; do :; done   # the headers
    cat <&3 >"$2"
  fi
  exec 3<&-
  echo "$status_line" | cut -d' ' -f2
}
probe() { get /api/models; }

registry_pid=
root_file=tuf/root.json   # the root the manifest pins, relative to it
if [ "$port" != 0 ] && [ -n "$(probe)" ]; then
  [ "$(probe)" = 200 ] || { echo "quickstart: 127.0.0.1:$port is in use by another server: stop it, or pass --port with a free port" >&2; exit 1; }
  echo "==> using the development registry already serving the demo catalog on 127.0.0.1:$port (left running)"
  api="http://127.0.0.1:$port"
  # Its root, as it serves it: trusting it on first use is right for a local development
  # registry only; a real deployment ships the publisher's root with the manifest.
  root_file=registry-root.json
  if [ "$(get /tuf/metadata/1.root.json "$work/$root_file")" = 200 ]; then
    echo "    it signs its catalog (--tuf): pinning the root it serves, quickstart/$root_file"
  else
    root_file=
    echo "    it serves no signed metadata (started without --tuf): syncing without trust.tuf"
  fi
else
  echo "==> starting the development registry (the demo catalog of examples/registry, signed with the keys in quickstart/tuf) on 127.0.0.1:$port"
  "$bin/manashiki-registry" serve examples/registry --port "$port" --tuf "$work/tuf" --ready-file "$work/registry.json" \
    >"$work/registry.log" 2>&1 &
  registry_pid=$!
  cleanup() { kill "$registry_pid" 2>/dev/null || true; wait "$registry_pid" 2>/dev/null || true; }
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  # Ready when it has written the ready file (once listening); failed when it has exited. No
  # deadline: a cold start on a busy machine may take long, and it ends one way or the other.
  until [ -s "$work/registry.json" ]; do
    kill -0 "$registry_pid" 2>/dev/null || { cat "$work/registry.log"; echo "quickstart: the registry did not start (pass --port with a free port if $port is taken)" >&2; exit 1; }
    sleep 0.1
  done
  api="$(sed -E 's/.*"apiBaseURL":"([^"]+)".*/\1/' "$work/registry.json")"
  port="${api##*:}"
fi
echo "    registry API at $api"

# The key in a file only its owner can read, which the manifest names (relative to itself):
# every later command finds it, in any shell.
(umask 077 && printf '%s\n' "$key" >"$work/api-key")
# trust.tuf: nothing is installed unless the registry's signed metadata lists that version with
# that digest and length (docs/signed-models.md).
trust=
[ -z "$root_file" ] || trust='
  "trust": {"tuf": {"metadataURL": "'"$api"'/tuf/metadata/", "root": {"file": "'"$root_file"'"}}},'
cat >"$work/manashiki.json" <<JSON
{
  "schemaVersion": 1,
  "registry": {"baseURL": "$api", "apiKey": {"file": "api-key"}},$trust
  "store": {"directory": "models", "concurrency": 2, "prune": {"mode": "tracked", "maxDeletes": 5}},
  "models": [
    {"id": "whisper-tiny-en", "version": "^1.0"},
    {"id": "distil-small-en"}
  ]
}
JSON

sync=("$bin/manashiki-sync" --manifest "$work/manashiki.json")

echo; echo "==> manashiki-sync plan   (exit 10: changes pending)"
"${sync[@]}" plan || [ $? -eq 10 ]

echo; echo "==> manashiki-sync sync${trust:+   (trust.tuf: only what the registry signed is installed)}"
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

echo
echo "Done. Models are in quickstart/models."
if [ -n "$registry_pid" ]; then
  echo "The registry stops with this script. To go on, start it in another terminal (it stays up until Ctrl-C):"
  echo "  $shown_bin/manashiki-registry serve --port $port --tuf quickstart/tuf"
  echo "then try:"
else
  echo "The registry on 127.0.0.1:$port is still running. Try:"
fi
echo "  $shown_bin/manashiki-sync --manifest quickstart/manashiki.json sync --json"
