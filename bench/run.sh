#!/usr/bin/env bash
# eventsvc against PostgreSQL 15 on the same machine, same events, same durability (fsync before
# the answer), TLS on both; see bench/README.md.
#
#   bench/run.sh [BUILD_DIR]                  sizes 100000 and 1000000, both data shapes
#   SIZES=100000 bench/run.sh                 one size
#   SHAPES=production bench/run.sh            one data shape (default "classic production")
#   HELD_OUT=1 bench/run.sh                   also the production shape with the held-out seed
#   STORAGE_BENCH=1 bench/run.sh              also the in-process storage benchmark
#   LOG=local bench/run.sh                    eventsvc makes writes durable in the local log plugin
#                                             (default: in the storage engine's own inbox)
#   LOAD_ONLY=1 bench/run.sh                  load the events, measure backups and an erasure, no
#                                             questions
#
# For each size and each shape it starts a throwaway PostgreSQL cluster and a throwaway eventsvc,
# each on its own temporary data directory and port on 127.0.0.1, runs bench/compare.py, and
# removes both. Every shape runs with seed 7, the one the code is tuned on; seed 11 is held out
# (never tuned on) and runs, with the production shape, only when HELD_OUT=1.
set -euo pipefail
build=${1:-build/release}
sizes=${SIZES:-100000 1000000}
shapes=${SHAPES:-classic production}
tuned_seed=7
held_out_seed=11
runs=()  # "shape seed"
for shape in $shapes; do
  case "$shape" in
    classic|production) runs+=("$shape $tuned_seed") ;;
    *) echo "bench: unknown shape '$shape' in SHAPES (classic, production)" >&2; exit 1 ;;
  esac
done
if [[ "${HELD_OUT:-0}" == 1 ]]; then
  runs+=("production $held_out_seed")
fi
case "${LOG:-none}" in
  none|local) ;;
  *) echo "bench: unknown LOG '${LOG}' (none, local)" >&2; exit 1 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
pg_bin=/usr/lib/postgresql/15/bin

for binary in "$pg_bin/postgres" /usr/bin/python3 "$build/bin/eventsvc"; do
  [[ -x "$binary" ]] || { echo "bench: $binary is missing (make bench installs and builds)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import psycopg2' 2>/dev/null ||
  { echo "bench: python3-psycopg2 is missing (make bench installs it)" >&2; exit 1; }
/usr/bin/python3 -c 'import pycurl' 2>/dev/null ||
  { echo "bench: python3-pycurl is missing (make bench installs it)" >&2; exit 1; }
if [[ " ${runs[*]} " == *" production "* && ! -f /usr/share/dict/words ]]; then
  echo "bench: /usr/share/dict/words is missing (wamerican; make bench installs it)" >&2; exit 1
fi

# The DuckDB specialist comes from npm, pinned by bench/anchors/package-lock.json (bench only).
if [[ ! -d "$here/anchors/node_modules" ]] && command -v npm >/dev/null 2>&1; then
  npm ci --prefix "$here/anchors" --no-audit --no-fund --loglevel=error >/dev/null
fi

work=$(mktemp -d /tmp/eventsvc-bench-XXXXXX)
chmod 755 "$work"
cleanup() {
  [[ -f "$work/svc.pid" ]] && kill "$(cat "$work/svc.pid")" 2>/dev/null || true
  [[ -d "$work/pg" ]] && as_pg "$pg_bin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# PostgreSQL refuses to run as root: then it runs as the `postgres` user its package created.
as_pg() {
  if [[ "$(id -u)" -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_postgres() {
  mkdir -p "$work/pg"
  [[ "$(id -u)" -eq 0 ]] && chown postgres "$work/pg"
  as_pg "$pg_bin/initdb" -D "$work/pg" -U bench --auth=trust -E UTF8 >/dev/null
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=127.0.0.1 -keyout "$work/pg/server.key" -out "$work/pg/server.crt" 2>/dev/null
  chmod 600 "$work/pg/server.key"
  [[ "$(id -u)" -eq 0 ]] && chown postgres "$work/pg/server.key" "$work/pg/server.crt"
  pg_port=$(free_port)
  # Durability as eventsvc's: every commit fsync'd before it is answered. Memory and WAL sized so
  # that PostgreSQL is not starved by its defaults.
  cat >> "$work/pg/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = '$work/pg'
ssl = on
fsync = on
synchronous_commit = on
full_page_writes = on
shared_buffers = 1GB
work_mem = 64MB
maintenance_work_mem = 256MB
max_wal_size = 8GB
checkpoint_timeout = 30min
max_connections = 64
CONF
  as_pg "$pg_bin/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w start >/dev/null
  pg_pid=$(head -1 "$work/pg/postmaster.pid")
  pg_dsn="host=127.0.0.1 port=$pg_port user=bench dbname=postgres sslmode=require"
}

stop_postgres() {
  as_pg "$pg_bin/pg_ctl" -D "$work/pg" -m fast stop >/dev/null
  rm -rf "$work/pg"
}

# The durable log plugin eventsvc runs with: none (the storage engine's own inbox) or local.
log_plugin() {
  if [[ "${LOG:-none}" == local ]]; then printf '  local:\n    library: eventsvc-log-local\n'; fi
}

start_eventsvc() {
  mkdir -p "$work/svc"
  cat > "$work/svc.yaml" <<YAML
server:
  listen: 127.0.0.1:0
  access_log: false
admin:
  listen: ""
plans:
  default:
    requests_per_minute: {ingest: 100000000, receipts: 100000000, search: 100000000, query: 100000000, analyze: 100000000, erasures: 100000000}
    concurrency: 64
    tails: 64
    retention_days: ${1:-30}
retention:
  remove_expired: false   # retention.py sweeps, with eventsvc retention
plugins:
  apikey:
    library: eventsvc-auth-apikey
  rocksdb:
    library: eventsvc-storage-rocksdb
$(log_plugin)
  count: {library: eventsvc-aggregation-count}
  sum: {library: eventsvc-aggregation-sum}
  avg: {library: eventsvc-aggregation-avg}
  decision: {library: eventsvc-context-decision}
YAML
  [[ -n "${1:-}" ]] || svc_key=$("$build/bin/eventsvc" keys create --workspace bench --env test \
    --scopes events:read,events:write,events:erase --config "$work/svc.yaml" --data-dir "$work/svc" 2>/dev/null)
  "$build/bin/eventsvc" serve --config "$work/svc.yaml" --data-dir "$work/svc" > "$work/svc.log" 2>&1 &
  echo $! > "$work/svc.pid"
  for _ in $(seq 100); do grep -q "eventsvc ready" "$work/svc.log" && break; sleep 0.1; done
  svc_url=$(grep -o 'https://127.0.0.1:[0-9]*' "$work/svc.log" | head -1)
  [[ -n "$svc_url" ]] || { cat "$work/svc.log" >&2; exit 1; }
}

stop_eventsvc() {
  kill "$(cat "$work/svc.pid")"
  wait "$(cat "$work/svc.pid")" 2>/dev/null || true
  rm -rf "$work/svc" "$work/svc.pid"
}

# The same server on the same data, its plan keeping $1 days instead of 30.
restart_eventsvc_keeping() {
  kill "$(cat "$work/svc.pid")"
  wait "$(cat "$work/svc.pid")" 2>/dev/null || true
  : > "$work/svc.log"
  start_eventsvc "$1"
}

# compare.py's questions asked again after both servers restart (bench/restart.py).
first_answers_after_restart() {
  local replay=(--questions "$work/questions.json" --answers "$work/answers.json")
  /usr/bin/python3 "$here/restart.py" --phase before --eventsvc "$svc_url" --key "$svc_key" \
    --pg "$pg_dsn" "${replay[@]}"
  as_pg "$pg_bin/pg_ctl" -D "$work/pg" -l "$work/pg/log" -m fast -w restart >/dev/null
  pg_pid=$(head -1 "$work/pg/postmaster.pid")
  restart_eventsvc_keeping 30
  /usr/bin/python3 "$here/restart.py" --phase after --eventsvc "$svc_url" --key "$svc_key" \
    --pg "$pg_dsn" "${replay[@]}"
  rm -f "$work/questions.json" "$work/answers.json"
}

# Wall seconds of a command, its output dropped.
seconds_of() {
  local start
  start=$(date +%s.%N)
  "$@" >/dev/null
  /usr/bin/python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.2f}")' \
    "$start" "$(date +%s.%N)"
}
# MiB a directory's files hold, and MiB the last directory adds to the disk beside the others (du
# counts a file hard-linked in several once).
mib() { du -sm --apparent-size "$1" | cut -f1; }
added_mib() { du -sm "$@" | tail -1 | cut -f1; }

# Backup and restore of what the run loaded, both servers serving: `eventsvc backup` (RocksDB
# checkpoints, table files hard-linked on this file system) against pg_basebackup (a plain copy
# with the WAL it needs), then what each needs before a server can start on the copy.
compare_backups() {
  local svc_backup="$work/svc-backup" again="$work/svc-backup-2" pg_backup="$work/pg-backup"
  local svc_s again_s pg_s svc_restore_s pg_restore_s
  local svc_new again_new
  svc_s=$(seconds_of "$build/bin/eventsvc" backup --config "$work/svc.yaml" --data-dir "$work/svc" \
    --to "$svc_backup")
  svc_new=$(added_mib "$work/svc" "$svc_backup")
  again_s=$(seconds_of "$build/bin/eventsvc" backup --config "$work/svc.yaml" --data-dir "$work/svc" \
    --to "$again")
  again_new=$(added_mib "$work/svc" "$svc_backup" "$again")
  mkdir -p "$pg_backup"
  [[ "$(id -u)" -eq 0 ]] && chown postgres "$pg_backup"
  # (It warns that it skips the server's socket, which lives in its data directory here.)
  pg_s=$(seconds_of as_pg "$pg_bin/pg_basebackup" -h 127.0.0.1 -p "$pg_port" -U bench \
    -D "$pg_backup" -X fetch --checkpoint=fast 2> >(grep -v 'skipping special file' >&2))
  svc_restore_s=$(seconds_of "$build/bin/eventsvc" restore --config "$work/svc.yaml" \
    --data-dir "$work/svc-restored" --from "$svc_backup")
  pg_restore_s=$(seconds_of cp -a "$pg_backup" "$work/pg-restored")
  echo "| backup and restore, both servers serving | PostgreSQL 15 | eventsvc |"
  echo "|---|---|---|"
  echo "| backup (pg_basebackup / eventsvc backup) | $pg_s s | $svc_s s |"
  echo "| backup size | $(mib "$pg_backup") MiB | $(mib "$svc_backup") MiB, $svc_new MiB of it new on disk (the rest hard links to the data directory) |"
  echo "| a second backup right after | | $again_s s, $again_new MiB new on disk beside the data directory and the first |"
  echo "| restore (copy back / eventsvc restore, which checks every file's SHA-256) | $pg_restore_s s | $svc_restore_s s |"
  rm -rf "$svc_backup" "$again" "$pg_backup" "$work/svc-restored" "$work/pg-restored"
}

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(uname -sr)"
for size in $sizes; do
  for run in "${runs[@]}"; do
    read -r shape seed <<< "$run"
    echo "== $size events, $shape shape, seed $seed"
    start_postgres
    start_eventsvc
    /usr/bin/python3 "$here/compare.py" --events "$size" --shape "$shape" --seed "$seed" \
      --eventsvc "$svc_url" --key "$svc_key" --eventsvc-pid "$(cat "$work/svc.pid")" \
      --eventsvc-data "$work/svc" --pg "$pg_dsn" --pg-pid "$pg_pid" --pg-data "$work/pg" \
      --questions-out "$work/questions.json" ${LOAD_ONLY:+--load-only}
    compare_backups
    /usr/bin/python3 "$here/readout.py" --eventsvc "$svc_url" --key "$svc_key" \
      --eventsvc-pid "$(cat "$work/svc.pid")" --pg "$pg_dsn" --pg-pid "$pg_pid"
    /usr/bin/python3 "$here/idle_gaps.py" --eventsvc "$svc_url" --key "$svc_key" --pg "$pg_dsn"
    [[ -f "$work/questions.json" ]] && first_answers_after_restart
    /usr/bin/python3 "$here/tail.py" --eventsvc "$svc_url" --key "$svc_key" --pg "$pg_dsn"
    /usr/bin/python3 "$here/erasure.py" --events "$size" --shape "$shape" --seed "$seed" \
      --eventsvc "$svc_url" --key "$svc_key" --eventsvc-data "$work/svc" \
      --pg "$pg_dsn" --pg-data "$work/pg"
    # The data spans the 6.5 days before the run: a plan of 5 days lets the oldest 1.5 go.
    restart_eventsvc_keeping 5
    /usr/bin/python3 "$here/retention.py" --events "$size" --days 5 \
      --eventsvc "$svc_url" --eventsvc-bin "$build/bin/eventsvc" --config "$work/svc.yaml" \
      --key "$svc_key" --eventsvc-data "$work/svc" --pg "$pg_dsn" --pg-data "$work/pg"
    if [[ -z "${slow_clients_done:-}" && -z "${LOAD_ONLY:-}" ]]; then
      echo "== slow and idle clients"
      /usr/bin/python3 "$here/slow_clients.py" --eventsvc "$svc_url" --key "$svc_key" --pg "$pg_dsn"
      slow_clients_done=1
    fi
    stop_eventsvc
    stop_postgres
  done
done

if [[ -n "${STORAGE_BENCH:-}" ]]; then
  echo "== in-process storage benchmark (no HTTP)"
  "$build/bin/eventsvc_storage_bench" --events "${size:-1000000}" --dir "$work/storage"
fi
