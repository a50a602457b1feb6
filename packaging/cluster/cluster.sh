#!/usr/bin/env bash
# A whole eventsvc cluster on this machine, on loopback only (docs/scale-out.md): a PostgreSQL 15
# primary with a synchronous standby (pg_basebackup -R), Redis with one Sentinel, three eventsvc
# servers on 127.0.0.2, 127.0.0.3 and 127.0.0.4 sharing them, and haproxy in front, checking
# each server's /readyz. Every program is Debian's (packaging/install-deps.sh installs them).
#
#   packaging/cluster/cluster.sh up   [DIR]   start it all; prints a key and a curl line
#   packaging/cluster/cluster.sh down [DIR]   stop all of it and remove DIR
#
# DIR: /tmp/eventsvc-cluster unless given. EVENTSVC: the eventsvc binary (default: the build's,
# else the one on PATH). HOSTS: how many eventsvc servers, 1 to 3 (default 3). Ports, below the kernel's ephemeral range: clients 127.0.0.1:28443
# (haproxy), servers 127.0.0.2-4:28443 with their admin listener on :29464, PostgreSQL
# 127.0.0.1:25432 (primary) and :25433 (standby), Redis :26379, Sentinel :26380.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command=${1:-}
dir=${2:-/tmp/eventsvc-cluster}
pg_bin=/usr/lib/postgresql/15/bin
front=28443
admin=29464
pg_primary=25432
pg_standby=25433
redis_port=26379
sentinel_port=26380
hosts=(127.0.0.2 127.0.0.3 127.0.0.4)
count=${HOSTS:-3}
[[ $count =~ ^[123]$ ]] || { echo "cluster: HOSTS is 1, 2 or 3" >&2; exit 2; }
hosts=("${hosts[@]:0:$count}")

eventsvc=${EVENTSVC:-}
if [[ -z "$eventsvc" ]]; then
  if [[ -x "$here/../../build/release/bin/eventsvc" ]]; then
    eventsvc=$(cd "$here/../../build/release/bin" && pwd)/eventsvc
  else
    eventsvc=$(command -v eventsvc || true)
  fi
fi

# PostgreSQL refuses to run as root: then it runs as the `postgres` user its package created.
as_pg() {
  if [[ "$(id -u)" -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
say() { echo "cluster: $*"; }
fail() { echo "cluster: $*" >&2; exit 1; }

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 10))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  fail "$what did not happen within $seconds s (logs in $dir)"
}

# A directory (or log file) PostgreSQL's user may write.
for_pg() {  # for_pg dir|file PATH
  if [[ $1 == dir ]]; then mkdir -p "$2"; chmod 700 "$2"; else touch "$2"; fi
  if [[ "$(id -u)" -eq 0 ]]; then chown postgres "$2"; fi
}

start_postgres() {
  for_pg dir "$dir/pg1"
  for_pg file "$dir/pg1.log"
  for_pg dir "$dir/pg2"
  for_pg file "$dir/pg2.log"
  as_pg "$pg_bin/initdb" -D "$dir/pg1" -U eventsvc --auth=trust -E UTF8 >"$dir/initdb.log"
  cat >>"$dir/pg1/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $pg_primary
unix_socket_directories = ''
wal_level = replica
max_wal_senders = 4
CONF
  as_pg "$pg_bin/pg_ctl" -D "$dir/pg1" -l "$dir/pg1.log" -w start >/dev/null
  as_pg "$pg_bin/pg_basebackup" -h 127.0.0.1 -p "$pg_primary" -U eventsvc -D "$dir/pg2" -R \
    -X stream >/dev/null
  cat >>"$dir/pg2/postgresql.conf" <<CONF
port = $pg_standby
unix_socket_directories = ''
CONF
  as_pg "$pg_bin/pg_ctl" -D "$dir/pg2" -l "$dir/pg2.log" -w start >/dev/null
  # From now on a commit is answered only once the standby has it.
  psql_primary -c "ALTER SYSTEM SET synchronous_standby_names = '*'" >/dev/null
  psql_primary -c "SELECT pg_reload_conf()" >/dev/null
  wait_for 30 "the standby becoming synchronous" standby_is_synchronous
}

psql_primary() {
  "$pg_bin/psql" -h 127.0.0.1 -p "$pg_primary" -U eventsvc -d postgres -At -v ON_ERROR_STOP=1 "$@"
}

standby_is_synchronous() {
  [[ "$(psql_primary -c "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")" == 1 ]]
}

start_redis() {
  mkdir -p "$dir/redis"
  redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir/redis" --appendonly yes \
    --save "" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  cat >"$dir/sentinel.conf" <<CONF
port $sentinel_port
bind 127.0.0.1
dir $dir/redis
sentinel monitor eventsvc 127.0.0.1 $redis_port 1
CONF
  redis-server "$dir/sentinel.conf" --sentinel --daemonize yes --pidfile "$dir/sentinel.pid" \
    --logfile "$dir/sentinel.log"
  wait_for 20 "Sentinel naming the Redis primary" sentinel_names_primary
}

sentinel_names_primary() {
  redis-cli -p "$sentinel_port" SENTINEL get-master-addr-by-name eventsvc | grep -q "$redis_port"
}

host_config() {  # host_config INDEX ADDRESS
  cat <<YAML
server:
  listen: $2:$front
admin:
  listen: $2:$admin
data_dir: $dir/host$1
cursors:
  secret_file: $dir/cursor.key  # one for every server: a page read on one continues on another
plans:
  default:
    requests_per_minute: {ingest: 600, receipts: 1200, search: 600, query: 600, analyze: 300}
    concurrency: 8
    retention_days: 30
  load-test:  # for bench/cluster.sh
    requests_per_minute: {ingest: 1000000, receipts: 1000000, search: 1000000, query: 1000000, analyze: 1000000}
    concurrency: 256
    retention_days: 30
plugins:
  apikey:
    library: eventsvc-auth-apikey
    config:
      keys_file: $dir/keys.json
  rocksdb:
    library: eventsvc-storage-rocksdb
  postgres:
    library: eventsvc-log-postgres
    config:
      conninfo: "host=127.0.0.1,127.0.0.1 port=$pg_primary,$pg_standby user=eventsvc dbname=postgres connect_timeout=2 target_session_attrs=read-write"
      host_id: host$1
  limits:
    library: eventsvc-limits-redis
    config:
      sentinels: [127.0.0.1:$sentinel_port]
      master_name: eventsvc
  count: {library: eventsvc-aggregation-count}
  distinct: {library: eventsvc-aggregation-distinct}
  sum: {library: eventsvc-aggregation-sum}
  avg: {library: eventsvc-aggregation-avg}
  min: {library: eventsvc-aggregation-min}
  max: {library: eventsvc-aggregation-max}
  integral: {library: eventsvc-aggregation-integral}
  documents: {library: eventsvc-context-documents}
  decision: {library: eventsvc-context-decision}
  hashing: {library: eventsvc-embedder-hashing}
YAML
}

start_hosts() {
  for ((i = 1; i <= count; i++)); do
    local address=${hosts[$((i - 1))]}
    host_config "$i" "$address" >"$dir/host$i.yaml"
    "$eventsvc" serve --config "$dir/host$i.yaml" >"$dir/host$i.log" 2>&1 &
    echo $! >"$dir/host$i.pid"
  done
  for ((i = 1; i <= count; i++)); do
    wait_for 60 "eventsvc host$i becoming ready" \
      curl -sf "http://${hosts[$((i - 1))]}:$admin/readyz"
  done
}

start_haproxy() {
  {
    cat <<CFG
global
  daemon
  pidfile $dir/haproxy.pid
defaults
  mode tcp
  # A server that refuses the connection (just died, not yet marked down): the next one.
  retries 3
  option redispatch
  timeout connect 2s
  timeout client 120s
  timeout server 120s
# TLS passes through: each server answers with its own certificate.
frontend eventsvc
  bind 127.0.0.1:$front
  default_backend servers
backend servers
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
CFG
    for ((i = 1; i <= count; i++)); do
      echo "  server host$i ${hosts[$((i - 1))]}:$front check port $admin inter 1s fall 2 rise 1" \
        "observe layer4 error-limit 1 on-error mark-down"
    done
  } >"$dir/haproxy.cfg"
  haproxy -f "$dir/haproxy.cfg"
  wait_for 20 "haproxy passing requests" curl -skf "https://127.0.0.1:$front/openapi.yaml"
}

up() {
  [[ -x "$pg_bin/initdb" ]] || fail "PostgreSQL 15 is missing (packaging/install-deps.sh)"
  for program in redis-server redis-cli haproxy curl; do
    command -v "$program" >/dev/null || fail "$program is missing (packaging/install-deps.sh)"
  done
  [[ -x "$eventsvc" ]] || fail "no eventsvc binary: build it (make build) or set EVENTSVC"
  [[ -e "$dir" ]] && fail "$dir exists: '$0 down $dir' first"
  mkdir -p "$dir"
  chmod 755 "$dir"
  as_pg test -x "$dir" ||
    fail "PostgreSQL's user cannot reach $dir: make the directories above it traversable"
  started=0
  trap '[[ $started == 1 ]] || failed_up' EXIT
  start_postgres
  say "PostgreSQL primary 127.0.0.1:$pg_primary, synchronous standby :$pg_standby"
  start_redis
  say "Redis 127.0.0.1:$redis_port, Sentinel :$sentinel_port"
  # The cursor key is shared too, made before the servers start: each would otherwise create its
  # own, and a page's cursor from one server would be refused (400) by the others.
  (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/cursor.key")
  # The key file is shared: made before the servers start, read again by them when it changes.
  key=$("$eventsvc" keys create --config <(host_config 1 "${hosts[0]}") --workspace demo \
    --env live --scopes events:read,events:write 2>"$dir/keys.log" | head -1)
  start_hosts
  say "eventsvc on ${hosts[*]} (port $front, admin $admin)"
  start_haproxy
  started=1
  say "haproxy 127.0.0.1:$front -> the servers"
  echo "$key" >"$dir/key"
  cat <<TEXT
cluster: ready. Key: $key
  curl -sk https://127.0.0.1:$front/v1/search -H "Authorization: Bearer $key" \\
    -H 'Content-Type: application/json' -d '{"query":"hello"}'
cluster: stop it with: $0 down $dir
TEXT
}

# What the logs said, then everything stopped.
failed_up() {
  echo "cluster: failed; the logs, then everything is stopped:" >&2
  for log in "$dir"/*.log; do
    [[ -f "$log" ]] && { echo "== $log" >&2; tail -n 20 "$log" >&2; }
  done
  down
}

stop_pid_file() {  # stop_pid_file FILE SIGNAL
  [[ -f "$1" ]] || return 0
  local pid
  pid=$(cat "$1")
  kill "-$2" "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

down() {
  [[ -d "$dir" ]] || return 0
  stop_pid_file "$dir/haproxy.pid" TERM
  for i in 1 2 3; do stop_pid_file "$dir/host$i.pid" TERM; done
  stop_pid_file "$dir/sentinel.pid" TERM
  stop_pid_file "$dir/redis.pid" TERM
  for pg in pg2 pg1; do
    if [[ -f "$dir/$pg/postmaster.pid" ]]; then
      as_pg "$pg_bin/pg_ctl" -D "$dir/$pg" -m fast -w stop >/dev/null 2>&1 || true
    fi
  done
  rm -rf "$dir"
}

case "$command" in
  up) up ;;
  down) down; say "stopped; $dir removed" ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
