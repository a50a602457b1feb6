#!/usr/bin/env bash
# packaging/cluster/cluster.sh as an operator uses it: up, a write through haproxy verified and
# read the same on every server, a page's cursor from one server read by another, the browser
# console paged through haproxy, one server killed with SIGKILL while haproxy keeps answering,
# down leaving no process and no file behind.
#   cluster_script_test.sh EVENTSVC_BINARY
set -euo pipefail
eventsvc=$1
here=$(cd "$(dirname "$0")" && pwd)
script="$here/../../packaging/cluster/cluster.sh"
work=$(mktemp -d /tmp/eventsvc-cluster-test-XXXXXX)
chmod 755 "$work"  # PostgreSQL runs as its own user
dir="$work/cluster"
trap 'EVENTSVC="$eventsvc" "$script" down "$dir" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

EVENTSVC="$eventsvc" "$script" up "$dir" >"$work/up.log" 2>&1 || { cat "$work/up.log"; fail "up"; }
grep -q "cluster: ready. Key: key_live_" "$work/up.log" || fail "no key printed"
key=$(cat "$dir/key")

api() {  # api ADDRESS METHOD PATH [BODY] -> the answer's body; fails on a status other than 2xx
  local address=$1 method=$2 path=$3 body=${4:-}
  curl -sk --fail-with-body -X "$method" "https://$address:28443$path" \
    -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
    -H "Idempotency-Key: cluster-test-$RANDOM$RANDOM" ${body:+-d "$body"}
}
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
receipts=()
for b in 1 2 3; do
  events=""
  for i in 1 2 3 4 5; do
    events+="${events:+,}{\"id\":\"b$b-$i\",\"type\":\"reading\",\"occurred_at\":\"$now\",\"data\":{\"value\":$i}}"
  done
  receipts+=("$(api 127.0.0.1 POST /v1/events "{\"stream\":\"test\",\"events\":[$events]}" |
    field "['receipt_id']")")
done
for receipt in "${receipts[@]}"; do
  for _ in $(seq 100); do
    state=$(api 127.0.0.1 GET "/v1/receipts/$receipt" | field "['status']")
    [[ $state == verified ]] && break
    sleep 0.1
  done
  [[ $state == verified ]] || fail "receipt $receipt is $state"
done

count='{"where":{"timestamp":{"gte":"now-1d"}},"aggregations":{"n":{"op":"count"}}}'
for address in 127.0.0.2 127.0.0.3 127.0.0.4; do
  n=$(api "$address" POST /v1/analyze "$count" | field "['aggregations']['n']['value']")
  [[ $n == 15 ]] || fail "$address counts $n events, not 15"
done

# A page read on one server continues on another: the servers sign cursors with one key.
paged='{"source":"history","where":{"stream":"test","timestamp":{"gte":"now-1d"}},"limit":5}'
cursor=$(api 127.0.0.2 POST /v1/query "$paged" | field "['next_cursor']")
cursor=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$cursor")
n=$(api 127.0.0.3 POST "/v1/query?cursor=$cursor" "$paged" | field "['results'].__len__()") ||
  fail "127.0.0.3 refused a cursor of 127.0.0.2"
[[ $n == 5 ]] || fail "the second page through another server has $n records, not 5"

# The console behind haproxy: its pages and every request of it reach any server, cursors too.
node "$here/../../console/tests/through_load_balancer.mjs" https://127.0.0.1:28443 "$key" test ||
  fail "the console through haproxy"

# The limits were kept in Redis, found through Sentinel (were it unreachable, requests would be
# admitted without limits and this would read 0). A connection that a busy machine let time out
# is tried again by the next request past retry_interval_ms, so requests are made until the gauge
# says so, not once.
redis_up=0
for _ in $(seq 100); do
  api 127.0.0.2 GET "/v1/receipts/${receipts[0]}" >/dev/null
  if curl -s http://127.0.0.2:29464/metrics |
    grep -q '^eventsvc_limits_redis_up{plugin="limits"} 1'; then
    redis_up=1
    break
  fi
  sleep 0.1
done
[[ $redis_up == 1 ]] || fail "host1 does not reach Redis through Sentinel"

kill -KILL "$(cat "$dir/host2.pid")"
# Gone once nothing accepts on its address (a dying process's socket may still take a connection).
for _ in $(seq 100); do
  curl -sk --max-time 1 https://127.0.0.3:28443/ >/dev/null 2>&1 || break
  sleep 0.1
done
for i in $(seq 20); do
  n=$(api 127.0.0.1 POST /v1/analyze "$count" | field "['aggregations']['n']['value']") ||
    fail "request $i through haproxy failed with host2 dead"
  [[ $n == 15 ]] || fail "request $i counted $n"
done

EVENTSVC="$eventsvc" "$script" down "$dir" >/dev/null
[[ ! -e "$dir" ]] || fail "$dir is still there"
sleep 0.5
if pgrep -f "$dir" >/dev/null; then pgrep -af "$dir" >&2; fail "processes are left"; fi
echo "cluster script: up, 15 events verified and counted alike on 3 servers, the console through haproxy, 20 requests with one server killed, down: OK"
