#!/usr/bin/env bash
# Runs the benchmarks against a build directory (default build/release):
#   1. the storage benchmark: 1M events through ingest + projection, query and search latency
#   2. HTTPS ingest and search throughput with wrk against the real server
# EVENTS=100000 bench/run.sh   for a shorter run.
set -euo pipefail
build=${1:-build/release}
events=${EVENTS:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/eventsvc-bench-XXXXXX)
trap 'kill $(cat "$work/pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT

echo "== storage: $events events"
"$build/bin/eventsvc_storage_bench" --events "$events" --dir "$work/storage"
rm -rf "$work/storage"

echo "== HTTPS: ingest and search with wrk (2 threads, 16 connections, 20 s each)"
cat > "$work/eventsvc.yaml" <<YAML
server:
  listen: 127.0.0.1:0
  threads: 32
  access_log: false
plans:
  default:
    requests_per_minute: {ingest: 100000000, receipts: 100000000, search: 100000000, query: 100000000, analyze: 100000000}
    concurrency: 64
plugins:
  apikey:
    library: eventsvc-auth-apikey
  rocksdb:
    library: eventsvc-storage-rocksdb
YAML
key=$("$build/bin/eventsvc" keys create --workspace bench --env test --scopes events:read,events:write \
      --config "$work/eventsvc.yaml" --data-dir "$work/data" 2>/dev/null)
"$build/bin/eventsvc" serve --config "$work/eventsvc.yaml" --data-dir "$work/data" > "$work/server.log" 2>&1 &
echo $! > "$work/pid"
for _ in $(seq 100); do grep -q "eventsvc ready" "$work/server.log" && break; sleep 0.1; done
url=$(grep -o 'https://127.0.0.1:[0-9]*' "$work/server.log" | head -1)
echo "-- POST /v1/events, 10 events per request, a fresh Idempotency-Key each"
KEY=$key wrk -t2 -c16 -d20s --latency -s "$here/ingest.lua" "$url/v1/events" | sed -n '1,20p'
echo "-- waiting for the projector to make every accepted event searchable"
started=$(date +%s)
until curl -sk "$url/v1/analyze" -H "Authorization: Bearer $key" \
        -d '{"source":"current","scan_limit":1,"include_results":false}' | grep -q '"projection_backlog":0'; do
  sleep 1
done
echo "   caught up after $(( $(date +%s) - started )) s"
echo "-- POST /v1/search \"overheat\" (one event in 5000 matches), BM25 top 10"
KEY=$key wrk -t2 -c16 -d20s --latency -s "$here/search.lua" "$url/v1/search" | sed -n '1,20p'
echo "-- one broad search, \"spike 7\" (a tenth of all events match; at most 50,000 are scored):"
for _ in 1 2 3; do
  curl -sk -o /dev/null -w '   %{time_total} s\n' "$url/v1/search" -H "Authorization: Bearer $key" \
    -d '{"query":"spike 7","limit":10}'
done
