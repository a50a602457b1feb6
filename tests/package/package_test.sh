#!/usr/bin/env bash
# The Debian packages as an operator and a plugin author meet them: builds both, checks them with
# lintian, installs them with dpkg, runs the installed server with the installed configuration as
# the service user (no systemd needed), ingests and queries over HTTPS, builds the out-of-tree
# example against the installed SDK, packages it as its own .deb, installs it and uses it through
# the configuration, then purges all three packages and checks that nothing of them is left.
#
#   package_test.sh <build dir> <source dir>
#
# It installs into this machine: it runs only as root, on a machine without eventsvc installed,
# and exits 77 (skipped, with the reason) otherwise.
set -euo pipefail
build=$(realpath "$1")
source=$(realpath "$2")

skip() {
  echo "package test skipped: $*"
  exit 77
}
fail() {
  echo "package test failed: $*" >&2
  exit 1
}
[[ "$(id -u)" -eq 0 ]] || skip "installing packages needs root (run make test as root to include it)"
command -v dpkg >/dev/null || skip "not a Debian system"
for package in eventsvc eventsvc-sdk eventsvc-plugin-range; do
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
    skip "$package is already installed on this machine"
  fi
done
getent passwd eventsvc >/dev/null && skip "a user named eventsvc already exists"
[[ -e /var/lib/eventsvc || -e /etc/eventsvc ]] && skip "/var/lib/eventsvc or /etc/eventsvc exists"
command -v lintian >/dev/null || fail "lintian is missing (packaging/install-deps.sh installs it)"

work=$(mktemp -d /tmp/eventsvc-package-XXXXXX)
chmod 0755 "$work"  # the service user reads the plugin built here
server_pid=""
cleanup() {
  set +e  # everything is undone, whatever fails on the way
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi
  dpkg --purge eventsvc-plugin-range eventsvc-sdk eventsvc >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

echo "== build and check the packages"
rm -rf "$build/packages"  # packages of an earlier build (another version or architecture)
(cd "$build" && cpack -G DEB -B "$work/cpack" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack"; }
server_deb=$(ls "$build"/packages/eventsvc_*.deb)
sdk_deb=$(ls "$build"/packages/eventsvc-sdk_*.deb)
lintian --fail-on error --tag-display-limit 0 "$server_deb" "$sdk_deb" 2>&1 |
  grep -v "running with root privileges" || true
lintian --fail-on error "$server_deb" "$sdk_deb" >/dev/null 2>&1 || fail "lintian found errors"

echo "== install"
dpkg -i "$server_deb" "$sdk_deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
for path in /usr/bin/eventsvc /usr/lib/eventsvc/plugins/libeventsvc-storage-rocksdb.so \
  /usr/lib/libeventsvc-sdk.so.0 /etc/eventsvc/eventsvc.yaml /lib/systemd/system/eventsvc.service \
  /usr/include/eventsvc/sdk/plugin.hpp /usr/lib/cmake/eventsvc-sdk/eventsvc-sdkConfig.cmake \
  /usr/lib/eventsvc/plugins/libeventsvc-limits-redis.so \
  /usr/share/doc/eventsvc/examples/cluster.example.yaml; do
  [[ -e "$path" ]] || fail "$path was not installed"
done
dpkg-query -W -f='${Conffiles}' eventsvc | grep -q "/etc/eventsvc/eventsvc.yaml" ||
  fail "the configuration is not a conffile"
[[ "$(stat -c '%U:%G %a' /var/lib/eventsvc)" == "eventsvc:eventsvc 750" ]] ||
  fail "/var/lib/eventsvc is $(stat -c '%U:%G %a' /var/lib/eventsvc)"
[[ "$(getent passwd eventsvc | cut -d: -f7)" == "/usr/sbin/nologin" ]] || fail "eventsvc has a shell"
if readelf -d /usr/bin/eventsvc | grep -qE "RPATH|RUNPATH"; then fail "the binary has a run path"; fi

as_service() { setpriv --reuid=eventsvc --regid=eventsvc --init-groups -- "$@"; }
config=/etc/eventsvc/eventsvc.yaml
start_server() {
  # Not through as_service: a function in the background is a subshell, and $! would be its pid.
  setpriv --reuid=eventsvc --regid=eventsvc --init-groups -- /usr/bin/eventsvc serve \
    --config "$1" --data-dir /var/lib/eventsvc --listen 127.0.0.1:0 --admin-listen "" \
    >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    grep -q "eventsvc ready" "$work/server.log" && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; fail "the server exited"; }
    sleep 0.1
  done
  port=$(grep -o 'https://127.0.0.1:[0-9]*' "$work/server.log" | head -1 | cut -d: -f3)
  [[ -n "$port" ]] || { cat "$work/server.log"; fail "the server did not say where it listens"; }
}
stop_server() {
  kill -TERM "$server_pid"
  wait "$server_pid" || fail "the server did not exit 0 on SIGTERM"
  server_pid=""
}
api() {  # api <method> <path> [body] [extra curl arguments...]
  local method=$1 path=$2 body=${3:-}
  shift 3 || shift $#
  curl -sk -X "$method" "https://127.0.0.1:$port$path" -H "Authorization: Bearer $key" \
    -H "Content-Type: application/json" ${body:+--data "$body"} "$@"
}

echo "== run the installed server as the service user"
key=$(as_service /usr/bin/eventsvc keys create --workspace packaged --env test \
  --scopes events:read,events:write --config "$config" --data-dir /var/lib/eventsvc)
[[ "$key" == key_test_* ]] || fail "no key: $key"
start_server "$config"
now=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
events='{"stream":"packaged","events":['
events+="{\"id\":\"p-1\",\"type\":\"reading\",\"occurred_at\":\"$now\",\"data\":{\"n\":3}},"
events+="{\"id\":\"p-2\",\"type\":\"reading\",\"occurred_at\":\"$now\",\"data\":{\"n\":11}}]}"
accepted=$(api POST /v1/events "$events" -H "Idempotency-Key: packaged-write-1" -w '\n%{http_code}')
[[ "$(tail -1 <<<"$accepted")" == "202" ]] || fail "ingest answered $accepted"
receipt=$(head -1 <<<"$accepted" | sed -n 's/.*"receipt_id":"\([^"]*\)".*/\1/p')
for _ in $(seq 100); do
  api GET "/v1/receipts/$receipt" "" | grep -q '"status":"verified"' && break
  sleep 0.1
done
api GET "/v1/receipts/$receipt" "" | grep -q '"status":"verified"' || fail "receipt not verified"
found=$(api POST /v1/query '{"where":{"stream":"packaged"},"order":"asc","limit":10}')
ids=$(grep -o '"id":"p-[0-9]"' <<<"$found" | tr '\n' ' ')
[[ "$ids" == '"id":"p-1" "id":"p-2" ' ]] || fail "query found $ids: $found"
not_owned=$(find /var/lib/eventsvc ! -user eventsvc)
[[ -z "$not_owned" ]] || fail "files of the data directory not owned by the service: $not_owned"
[[ -n "$(find /var/lib/eventsvc -name CURRENT)" ]] || fail "no database in /var/lib/eventsvc"
stop_server

echo "== build the out-of-tree example against the installed SDK, package it, load it"
cmake -S "$source/examples/out-of-tree-plugin" -B "$work/plugin" -DCMAKE_BUILD_TYPE=Release \
  >"$work/plugin.log" 2>&1 || { cat "$work/plugin.log"; fail "configuring the example"; }
cmake --build "$work/plugin" >>"$work/plugin.log" 2>&1 || { cat "$work/plugin.log"; fail "build"; }
(cd "$work/plugin" && cpack -G DEB >>"$work/plugin.log" 2>&1) || { cat "$work/plugin.log"; fail "cpack"; }
plugin_deb=$(ls "$work"/plugin/eventsvc-plugin-range_*.deb)
dpkg -i "$plugin_deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i the plugin"; }
[[ -e /usr/lib/eventsvc/plugins/libeventsvc-aggregation-range.so ]] ||
  fail "the plugin's package did not put it next to the server's plugins"
# Enabled by name, like the server's own.
{
  cat "$config"
  printf '  range:\n    library: eventsvc-aggregation-range\n'
} >"$work/with-plugin.yaml"
chmod 0644 "$work/with-plugin.yaml"
start_server "$work/with-plugin.yaml"
answer=$(api POST /v1/analyze \
  '{"where":{"stream":"packaged","timestamp":{"gte":"now-1h"}},"aggregations":{"spread":{"op":"range","field":"payload.n"}},"include_results":false}')
grep -q '"spread":{[^}]*"value":8[,}]' <<<"$answer" || fail "the range operator answered: $answer"
stop_server

echo "== purge"
dpkg --purge eventsvc-plugin-range eventsvc-sdk eventsvc >"$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log"; fail "purge"; }
for path in /usr/bin/eventsvc /usr/lib/eventsvc /usr/lib/libeventsvc-sdk.so.0 \
  /usr/lib/libeventsvc-sdk.so.0.1.0 /usr/lib/libeventsvc-sdk.so /etc/eventsvc /var/lib/eventsvc \
  /lib/systemd/system/eventsvc.service /usr/include/eventsvc /usr/lib/cmake/eventsvc-sdk \
  /usr/share/doc/eventsvc /usr/share/doc/eventsvc-sdk; do
  [[ ! -e "$path" ]] || fail "$path is left after purge"
done
getent passwd eventsvc >/dev/null && fail "the eventsvc user is left after purge"
getent group eventsvc >/dev/null && fail "the eventsvc group is left after purge"
packages=(eventsvc eventsvc-sdk eventsvc-plugin-range)
if dpkg-query -W -f='${Status}\n' "${packages[@]}" 2>/dev/null | grep -qv "not-installed"; then
  fail "dpkg still knows the packages: $(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}")"
fi
echo "package test passed: built, lintian clean, installed, served, extended by a packaged plugin, purged"
