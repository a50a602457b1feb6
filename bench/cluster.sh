#!/usr/bin/env bash
# eventsvc on one server, and as a cluster of 1, 2 and 3 servers on PostgreSQL (primary and
# synchronous standby) and Redis, all on this machine; the same load against each: accepted and
# verified events per second and query p50/p99 (bench/cluster.py). See bench/README.md.
#
#   bench/cluster.sh [BUILD_DIR]        WRITES=400 QUERIES=300 by default
set -euo pipefail
build=${1:-build/release}
here=$(cd "$(dirname "$0")" && pwd)
eventsvc=$(cd "$build/bin" && pwd)/eventsvc
[[ -x "$eventsvc" ]] || { echo "bench: $eventsvc is missing (make build)" >&2; exit 1; }
/usr/bin/python3 -c 'import psycopg2' 2>/dev/null ||
  { echo "bench: python3-psycopg2 is missing (packaging/install-deps.sh --bench)" >&2; exit 1; }
work=$(mktemp -d /tmp/eventsvc-bench-cluster-XXXXXX)
chmod 755 "$work"
single_pid=""
cleanup() {
  [[ -n "$single_pid" ]] && kill "$single_pid" 2>/dev/null || true
  EVENTSVC="$eventsvc" "$here/../packaging/cluster/cluster.sh" down "$work/cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

results=()

# One server, its own RocksDB durable log, local limits: the default configuration.
cat >"$work/single.yaml" <<YAML
server:
  listen: 127.0.0.5:28443
admin:
  listen: ""
data_dir: $work/single
plans:
  load-test:
    requests_per_minute: {ingest: 1000000, receipts: 1000000, search: 1000000, query: 1000000, analyze: 1000000}
    concurrency: 256
    retention_days: 30
plugins:
  apikey: {library: eventsvc-auth-apikey}
  rocksdb: {library: eventsvc-storage-rocksdb}
  count: {library: eventsvc-aggregation-count}
  hashing: {library: eventsvc-embedder-hashing}
YAML
key=$("$eventsvc" keys create --config "$work/single.yaml" --workspace bench --env live \
  --scopes events:read,events:write --plan load-test 2>/dev/null | head -1)
"$eventsvc" serve --config "$work/single.yaml" >"$work/single.log" 2>&1 &
single_pid=$!
for _ in $(seq 300); do grep -q "eventsvc ready" "$work/single.log" && break; sleep 0.1; done
echo "bench: one server" >&2
results+=("single $(/usr/bin/python3 "$here/cluster.py" "$key" https://127.0.0.5:28443)")
kill "$single_pid"
wait "$single_pid" 2>/dev/null || true
single_pid=""

for hosts in 1 2 3; do
  echo "bench: a cluster of $hosts" >&2
  HOSTS=$hosts EVENTSVC="$eventsvc" "$here/../packaging/cluster/cluster.sh" up "$work/cluster" \
    >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; exit 1; }
  key=$("$eventsvc" keys create --config "$work/cluster/host1.yaml" --workspace bench --env live \
    --scopes events:read,events:write --plan load-test 2>/dev/null | head -1)
  urls=()
  for ((i = 2; i < 2 + hosts; i++)); do urls+=("https://127.0.0.$i:28443"); done
  results+=("cluster$hosts $(/usr/bin/python3 "$here/cluster.py" "$key" "${urls[@]}")")
  EVENTSVC="$eventsvc" "$here/../packaging/cluster/cluster.sh" down "$work/cluster" >/dev/null
done

echo "| setup | accepted events/s | verified events/s | query p50 | query p99 |"
echo "|---|---|---|---|---|"
for line in "${results[@]}"; do
  name=${line%% *}
  /usr/bin/python3 - "$name" "${line#* }" <<'PY'
import json, sys
name, r = sys.argv[1], json.loads(sys.argv[2])
label = "one server (RocksDB log)" if name == "single" else "cluster of %d (PostgreSQL log)" % r["servers"]
print("| %s | %d | %d | %.1f ms | %.1f ms |" % (label, r["accepted_per_s"], r["verified_per_s"],
                                             r["query_p50_ms"], r["query_p99_ms"]))
PY
done
