#!/usr/bin/python3
"""eventsvc against PostgreSQL 15, side by side, on the same generated events.

Both servers are started by bench/run.sh; this program loads the same events into both over TLS
(16 connections, 100-event writes, each acknowledged only after fsync), asks both the same
questions, checks every answer against what the generator knows to be true, and prints one table.
Then it gives the same events to two specialists (bench/anchors: DuckDB for the history
aggregations, Xapian for BM25 search), checks their answers alike and prints a second table.

  bench/compare.py --events N --eventsvc URL --key KEY --eventsvc-pid PID --eventsvc-data DIR
                   --pg DSN --pg-pid PID --pg-data DIR [--shape classic|production] [--seed N]

The generator is deterministic: batch i is a pure function of (seed, i), so both loads send the
same events and the expectations are computed once, from the same batches. Two data shapes: the
classic one (three streams, a 24-word vocabulary) and a production-like one (five streams, nested
objects and arrays, high-cardinality values, free text from a real dictionary). Seed 7 is the one
the code is tuned on; seed 11 is held out (bench/README.md).
"""

import argparse
import concurrent.futures
import gc
import http.client
import io
import json
import os
import random
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlparse

import psycopg2
import psycopg2.extras
import pycurl

from generation import BATCH, DAY, MINUTE, GeneratedEvents, count_history, iso
from production_shape import ProductionDataset, ProductionTruth

CONNECTIONS = 16
QUERY_RUNS = 100
QUERY_ROUNDS = 2
MIN_QUERY_RUNS = 10
QUESTION_SECONDS = 120
SENSORS = 5000
SITES = 20
WORDS = ["session", "token", "granted", "denied", "refresh", "expired", "mfa", "password",
         "browser", "mobile", "client", "agent", "network", "region", "policy", "audit", "scope",
         "renewed", "cookie", "origin", "trusted", "revoked", "challenge", "federated"]
RARE = "quokka"




# ---- the generator --------------------------------------------------------------------------


class Dataset(GeneratedEvents):
    """N events of three kinds over the 6.5 days before `end`: sensor readings (nested data and a
    `metrics` object, 5,000 devices re-reporting), order lifecycles (ids with several versions)
    and auth logs with free text (unique ids). Every event carries metrics.latency_ms."""

    shape = "classic"

    def __init__(self, events, end_ms, seed=7):
        super().__init__(events, end_ms, seed)
        self.orders = max(1, events * 3 // 40)  # about 4 versions per order
        # Made before anything is timed, so the loads measure the servers, not the generator.
        self.prepared = [self.batch(i) for i in range(self.batches)]

    def stream_of(self, batch):
        return ("sensors", "sensors", "sensors", "sensors", "orders", "orders", "orders",
                "auth", "auth", "auth")[batch % 10]

    def batch(self, i):
        """(stream, [event objects]) of batch i."""
        rng = random.Random(self.seed * 1_000_003 + i)
        stream = self.stream_of(i)
        out = []
        for j in range(min(BATCH, self.events - i * BATCH)):
            n = i * BATCH + j
            at = iso(self.start + n * self.step)
            latency = rng.randrange(1, 500)
            if stream == "sensors":
                temp = round(rng.uniform(10, 45), 2)
                event = {"id": "sensor-%d" % rng.randrange(SENSORS), "type": "reading",
                         "occurred_at": at,
                         "data": {"device": {"site": "site-%d" % rng.randrange(SITES),
                                             "model": rng.choice(["tx-100", "tx-200", "rx-9"])},
                                  "reading": {"temp": temp, "humidity": rng.randrange(20, 90)},
                                  "status": "warn" if temp > 40 else "ok"},
                         "metrics": {"latency_ms": latency, "battery": rng.randrange(0, 100)}}
            elif stream == "orders":
                status = rng.choice(["created", "paid", "shipped", "delivered"])
                event = {"id": "order-%d" % rng.randrange(self.orders), "type": "order." + status,
                         "occurred_at": at,
                         "data": {"customer": {"id": "c-%d" % rng.randrange(5000),
                                               "tier": rng.choice(["bronze", "silver", "gold"])},
                                  "total": round(rng.uniform(5, 1000), 2), "currency": "EUR",
                                  "status": status,
                                  "items": [{"sku": "sku-%d" % rng.randrange(300),
                                             "qty": rng.randrange(1, 5)}]},
                         "metrics": {"latency_ms": latency}}
            else:
                words = [rng.choice(WORDS) for _ in range(8)]
                if n % 20011 == 7:
                    words[rng.randrange(8)] = RARE
                event = {"id": "auth-%d" % n,
                         "type": rng.choice(["login", "logout", "login_failed"]),
                         "occurred_at": at,
                         "data": {"user": "user-%d" % rng.randrange(10000),
                                  "ip": "10.%d.%d.%d" % (rng.randrange(256), rng.randrange(256),
                                                         rng.randrange(256)),
                                  "message": " ".join(words)},
                         "metrics": {"latency_ms": latency}}
            out.append((self.start + n * self.step, event))
        return stream, out


class Truth:
    """What every question must answer, computed from the generated batches."""

    def __init__(self, data):
        self.day_from = data.end - DAY
        self.week_from = data.end - 7 * DAY
        # What the questions ask for (the production shape picks these from its data).
        self.common_words = ("session", "token")
        self.rare_word = RARE
        self.sensor_site = "site-3"
        both, rare = set(), set()
        latest = {}  # id -> (at, event): the current state
        per_stream = {}
        buckets = {}
        for stream, events in data.prepared:
            for at, event in events:
                count_history(per_stream, buckets, stream, at, event, self.day_from)
                if at >= self.day_from and stream == "auth":
                    words = set(event["data"]["message"].split())
                    if self.common_words[0] in words and self.common_words[1] in words:
                        both.add(event["id"])
                    if self.rare_word in words:
                        rare.add(event["id"])
                if stream != "auth":
                    previous = latest.get(event["id"])
                    if previous is None or previous[0] <= at:
                        latest[event["id"]] = (at, event)
        self.two_words = both
        self.rare = rare
        self.orders = {i for i, (_, e) in latest.items() if i.startswith("order-")
                       and e["data"]["customer"]["tier"] == "gold"
                       and e["data"]["status"] == "paid" and e["data"]["total"] > 900}
        self.sensors = {i for i, (_, e) in latest.items() if i.startswith("sensor-")
                        and e["data"]["device"]["site"] == self.sensor_site
                        and e["data"]["status"] == "warn" and e["data"]["reading"]["humidity"] > 50}
        self.per_stream = per_stream
        self.buckets = buckets


# ---- checks: every answer against the generator's truth ----------------------------------------


def expect_subset(expected, size):
    """Search results: min(size, |expected|) ids, every one a match."""
    def check(side, ids):
        ids = list(ids)
        if len(ids) != min(size, len(expected)):
            return "%d results, expected %d" % (len(ids), min(size, len(expected)))
        wrong = [i for i in ids if i not in expected]
        return "not matches: %s" % wrong[:5] if wrong else None
    return check


def expect_exact(expected):
    def check(side, ids):
        got = set(ids)
        return None if got == expected else "got %d ids, expected %d (missing %s, extra %s)" % (
            len(got), len(expected), sorted(expected - got)[:3], sorted(got - expected)[:3])
    return check


def expect_streams(per_stream):
    """{stream: (count, sum of metrics.latency_ms)}, exactly."""
    def check(side, answer):
        if answer != {s: (c, t) for s, (c, t) in per_stream.items()}:
            return "%s != %s" % (answer, per_stream)
        return None
    return check


def expect_buckets(buckets):
    """{RFC 3339 start of a 5-minute bucket: events}, exactly."""
    def check(side, answer):
        return None if answer == {iso(k): v for k, v in buckets.items()} else (
            "%d buckets, expected %d" % (len(answer), len(buckets)))
    return check


# ---- clients --------------------------------------------------------------------------------


def streaming_connection(url, timeout):
    """An HTTPS connection to eventsvc whose response is read as it arrives (an export, a tail),
    which Eventsvc's exchanges, each answer whole in memory, do not serve. Not verified."""
    parsed = urlparse(url)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return http.client.HTTPSConnection(parsed.hostname, parsed.port, context=context,
                                       timeout=timeout)


class Eventsvc:
    """eventsvc over HTTPS through libcurl (pycurl), one kept-alive connection per thread: a C
    client, as psycopg2 (libpq) is PostgreSQL's. Python's http.client parses each response's
    headers in Python, which cost more than the server's own time for the smallest answers."""

    def __init__(self, url, key):
        self.url = url.rstrip("/")
        self.key = key
        self.local = threading.local()
        self.auth = "Authorization: Bearer " + key

    def handle(self):
        if not hasattr(self.local, "curl"):
            curl = pycurl.Curl()
            curl.setopt(pycurl.SSL_VERIFYPEER, 0)
            curl.setopt(pycurl.SSL_VERIFYHOST, 0)
            # Nothing is verified, so no CA bundle is read: reading it cost 20-50 ms a connection.
            curl.setopt(pycurl.CAINFO, "/dev/null")
            curl.setopt(pycurl.CAPATH, "/dev/null")
            curl.setopt(pycurl.HTTP_VERSION, pycurl.CURL_HTTP_VERSION_1_1)
            curl.setopt(pycurl.TIMEOUT, 120)
            curl.setopt(pycurl.NOSIGNAL, 1)
            self.local.curl = curl
        return self.local.curl

    def exchange(self, path, payload=None, headers=()):
        """(status, header lines, body) of one request: a POST of `payload`, or a GET."""
        curl = self.handle()
        body = io.BytesIO()
        head = []
        curl.setopt(pycurl.URL, self.url + path)
        # No "Expect: 100-continue" (libcurl's default for larger bodies): one round trip.
        curl.setopt(pycurl.HTTPHEADER, [self.auth, "Expect:", *headers])
        if payload is None:
            curl.setopt(pycurl.HTTPGET, 1)
        else:
            curl.setopt(pycurl.POSTFIELDS, payload)
        curl.setopt(pycurl.WRITEDATA, body)
        curl.setopt(pycurl.HEADERFUNCTION, head.append)
        curl.perform()
        return curl.getinfo(pycurl.RESPONSE_CODE), head, body.getvalue()

    @staticmethod
    def header(head, name):
        prefix = name.lower().encode() + b":"
        for line in head:
            if line.lower().startswith(prefix):
                return line[len(prefix):].strip().decode()
        return None

    def post(self, path, body, headers=None):
        all_headers = ["Content-Type: application/json"]
        all_headers += ["%s: %s" % item for item in (headers or {}).items()]
        payload = body if isinstance(body, (bytes, str)) else json.dumps(body)
        for attempt in range(50):
            try:
                status, head, text = self.exchange(path, payload, all_headers)
            except pycurl.error:
                self.local.curl.close()
                del self.local.curl
                if attempt == 49:
                    raise
                continue
            if status in (429, 503):
                time.sleep(float(self.header(head, "Retry-After") or "1"))
                continue
            if status >= 300:
                raise RuntimeError("%s %s: %d %s" % (path, payload[:200], status, text))
            answer = json.loads(text)
            self.local.elapsed_ms = answer.get("elapsed_ms") if isinstance(answer, dict) else None
            return answer
        raise RuntimeError("%s: gave up" % path)

    def get(self, path):
        status, _, text = self.exchange(path)
        return status, json.loads(text)

    def last_elapsed(self):
        """The server's own time for this thread's last answer (its elapsed_ms), in seconds."""
        ms = getattr(self.local, "elapsed_ms", None)
        return None if ms is None else ms / 1000

    @staticmethod
    def body(stream, events):
        return json.dumps({"stream": stream, "events": events}).encode()

    def write(self, body, key):
        return self.post("/v1/events", body, {"Idempotency-Key": key})

    def backlog(self):
        answer = self.post("/v1/analyze", {"source": "current", "scan_limit": 1,
                                           "include_results": False})
        return answer["freshness"]["projection_backlog"]


class Postgres:
    SCHEMA = """
      CREATE TABLE events (
        id text NOT NULL, occurred_at timestamptz NOT NULL, stream text NOT NULL,
        type text NOT NULL, doc jsonb NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (jsonb_to_tsvector('simple', doc, '["string", "key"]')) STORED,
        PRIMARY KEY (id, occurred_at));
      CREATE INDEX events_doc ON events USING gin (doc jsonb_path_ops);
      CREATE INDEX events_tsv ON events USING gin (tsv);
      CREATE INDEX events_time ON events (occurred_at);
      CREATE TABLE current_events (
        id text PRIMARY KEY, occurred_at timestamptz NOT NULL, stream text NOT NULL,
        type text NOT NULL, doc jsonb NOT NULL);
      CREATE INDEX current_events_doc ON current_events USING gin (doc jsonb_path_ops);
      CREATE INDEX current_events_time ON current_events (occurred_at);
    """

    def __init__(self, dsn):
        self.dsn = dsn
        self.local = threading.local()

    def connection(self):
        if not hasattr(self.local, "conn"):
            self.local.conn = psycopg2.connect(self.dsn)
        return self.local.conn

    def create(self):
        conn = self.connection()
        with conn.cursor() as cursor:
            cursor.execute(self.SCHEMA)
        conn.commit()

    @staticmethod
    def rows_of(stream, events):
        """(history rows, current rows): the current row per id is the newest of the write."""
        rows = [(e["id"], e["occurred_at"], stream, e["type"], json.dumps(e)) for e in events]
        newest = {}
        for row in rows:
            if row[0] not in newest or newest[row[0]][1] <= row[1]:
                newest[row[0]] = row
        # Sorted, so concurrent writers take row locks in one order and never deadlock.
        return sorted(rows), sorted(newest.values())

    def write(self, rows, newest):
        """One transaction: history rows, then the current rows."""
        conn = self.connection()
        with conn.cursor() as cursor:
            psycopg2.extras.execute_values(
                cursor, "INSERT INTO events (id, occurred_at, stream, type, doc) VALUES %s "
                        "ON CONFLICT DO NOTHING", rows, page_size=BATCH)
            psycopg2.extras.execute_values(
                cursor, "INSERT INTO current_events AS c (id, occurred_at, stream, type, doc) "
                        "VALUES %s ON CONFLICT (id) DO UPDATE SET occurred_at = EXCLUDED.occurred_at, "
                        "stream = EXCLUDED.stream, type = EXCLUDED.type, doc = EXCLUDED.doc "
                        "WHERE c.occurred_at <= EXCLUDED.occurred_at",
                newest, page_size=BATCH)
        conn.commit()

    def rows(self, sql, params=()):
        conn = self.connection()
        with conn.cursor() as cursor:
            cursor.execute(sql, params)
            result = cursor.fetchall() if cursor.description else []
        conn.commit()
        return result


# ---- measurements ---------------------------------------------------------------------------


def cpu_seconds(pids):
    """CPU time of the processes; for the first, also that of its children that have exited
    (PostgreSQL's backends end with their connections)."""
    total = 0
    ticks = os.sysconf("SC_CLK_TCK")
    for index, pid in enumerate(pids):
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
            if index == 0:
                total += (int(fields[13]) + int(fields[14])) / ticks  # cutime, cstime
        except OSError:
            pass
    return total


def process_tree(root):
    """The root and every live descendant (PostgreSQL's backends and workers)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def peak_rss_bytes(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def pg_delete_and_vacuum(pg, condition, params):
    """DELETE FROM events and current_events WHERE `condition` in one transaction, then VACUUM of
    both and a CHECKPOINT: (history rows deleted, seconds to the commit, seconds of VACUUM). Leaves
    the connection in autocommit."""
    with pg.cursor() as cursor:
        started = time.monotonic()
        cursor.execute("DELETE FROM events WHERE " + condition, params)
        deleted = cursor.rowcount
        cursor.execute("DELETE FROM current_events WHERE " + condition, params)
        pg.commit()
        hidden = time.monotonic() - started
    pg.autocommit = True
    with pg.cursor() as cursor:
        started = time.monotonic()
        cursor.execute("VACUUM events, current_events")
        vacuum = time.monotonic() - started
        cursor.execute("CHECKPOINT")
    return deleted, hidden, vacuum


def disk_bytes(path):
    return int(subprocess.check_output(["du", "-sb", path]).split()[0])


def load(batches, write, what):
    """Sends every prepared batch through `write(i, batch)` from 16 threads; (seconds taken, each
    write's seconds)."""
    started = time.monotonic()
    done = [0]
    latencies = []
    lock = threading.Lock()
    total = len(batches)

    def worker(i):
        sent = time.monotonic()
        write(i, batches[i])
        latencies.append(time.monotonic() - sent)
        with lock:
            done[0] += 1
            if done[0] % max(1, total // 10) == 0:
                print("   %s: %d%%" % (what, done[0] * 100 // total), file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(CONNECTIONS) as pool:
        for future in [pool.submit(worker, i) for i in range(total)]:
            future.result()
    return time.monotonic() - started, latencies


def plant_pack(svc, end_ms, runs=20):
    """The compaction case: 10,000 readings of 20 sensors over the 5 hours before end_ms, each
    its own event; s-00..s-09 go idle -> running -> idle -> running, s-10..s-19 stay idle. Asks
    for a decision pack by sensor at the default budget, `runs` times. Returns (pack, timings)."""
    readings, sensors = 500, 20
    start = end_ms - 5 * 3600 * 1000
    batch, batches = [], 0
    for reading in range(readings):
        for sensor in range(sensors):
            phase = reading * 4 // readings if sensor < 10 else 0
            batch.append({"id": "plant-%d-%d" % (sensor, reading), "type": "reading",
                          "occurred_at": iso(start + reading * 36000 + sensor),
                          "data": {"sensor": "s-%02d" % sensor,
                                   "state": "idle" if phase % 2 == 0 else "running"}})
            if len(batch) == BATCH:
                svc.write(Eventsvc.body("plant", batch), "plant-%06d" % batches)
                batch, batches = [], batches + 1
    while svc.backlog() > 0:
        time.sleep(0.1)
    body = {"where": {"stream": "plant", "timestamp": {"gte": iso(start)}},
            "group_by": ["payload.sensor"], "include_results": False,
            "context": {"mode": "decision"}}
    timings, pack = [], None
    for _ in range(runs):
        started = time.perf_counter()
        pack = svc.post("/v1/analyze", body)["context"]
        timings.append(time.perf_counter() - started)
    return pack, timings


LAG_WRITERS = 4  # connections the lag probe writes on, each a batch in turn


def verification_lag(svc, rate, seconds, end_ms, shapes):
    """Writes 100-event batches at `rate` events/s for `seconds` on LAG_WRITERS connections; for
    each, the time from its 202 to its receipt reading `verified` (polled every 50 ms). Batch n's
    events copy the type, data and metrics of `shapes[n % len(shapes)]` (the data set's own
    batches, so that projecting them costs what projecting the data set does), under stream
    `probe`, new ids, times after `end_ms`, and the data one level down (`data.copy`), so that no
    question, erasure or export of the loaded events meets them. Returns (lags in seconds, events/s
    acknowledged)."""
    acknowledged = {}  # receipt id -> when its 202 arrived
    lags = []
    lock = threading.Lock()
    batches = int(seconds * rate / BATCH)
    interval = BATCH / rate
    written = [0]
    started = time.monotonic()

    def probe(n):
        return [{"id": "lag-%d-%d" % (n, j), "type": event["type"], "occurred_at": iso(end_ms + n),
                 "data": {"copy": event["data"]}, "metrics": event["metrics"]}
                for j, (_, event) in enumerate(shapes[n % len(shapes)][1])]

    def writer(first):
        for n in range(first, batches, LAG_WRITERS):
            time.sleep(max(0.0, started + n * interval - time.monotonic()))
            events = probe(n)
            receipt = svc.write(Eventsvc.body("probe", events), "lag-%08d" % n)
            with lock:
                acknowledged[receipt["receipt_id"]] = time.monotonic()
                written[0] += len(events)

    def poller(writers):
        # The projector takes writes in the order they were accepted, so the receipts are asked
        # for in the order of their 202s, up to the first not yet verified: one verified before
        # an earlier one is found on a later pass (its lag counted long, by a round at most, never
        # short), and the polling stays a few requests a pass instead of one per write in flight,
        # which at this rate would take a core of the two from the server being measured.
        while True:
            with lock:
                pending = sorted(acknowledged.items(), key=lambda item: item[1])
            if not pending and not any(w.is_alive() for w in writers):
                return
            for receipt_id, at in pending:
                status, body = svc.get("/v1/receipts/" + receipt_id)
                if status != 200 or body["status"] not in ("verified", "conflict"):
                    break
                with lock:
                    del acknowledged[receipt_id]
                    lags.append(time.monotonic() - at)
            time.sleep(0.05)

    writers = [threading.Thread(target=writer, args=(w,)) for w in range(LAG_WRITERS)]
    for thread in writers:
        thread.start()
    watcher = threading.Thread(target=poller, args=(writers,))
    watcher.start()
    for thread in writers:
        thread.join()
    sent_for = time.monotonic() - started
    watcher.join()
    return lags, written[0] / sent_for


def percentiles(samples):
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def p50_p99_first(samples):
    """The median, the 99th percentile and the first of samples in the order they were taken."""
    return percentiles(samples) + (samples[0],)


def fmt_ms(seconds):
    ms = seconds * 1000
    if ms < 0.1:
        return "%.3f ms" % ms  # the specialists' fastest questions, inside their process
    return "%.2f ms" % ms if ms < 10 else "%.1f ms" % ms if ms < 100 else "%.0f ms" % ms


# ---- specialists: DuckDB for the history aggregations, Xapian for BM25 search -------------------

ANCHORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "anchors")
NOT_INSTALLED = "not installed (make bench installs it)"
# The questions of the main table each specialist answers, by the name eventsvc's row has there.
TWO_WORDS = "search, two common words, 24 h, top 25"
RARE_WORD = "search, a rare word, 24 h"
STREAMS = "history 7 days: count, sum and avg grouped by stream"
BUCKETS = "history 24 h: 5-minute buckets"


def write_anchor_events(data, path):
    """The events as JSON lines holding what the specialists' questions read: id, stream, time in
    epoch ms, metrics.latency_ms, and data.message where there is one (in both shapes only the
    text streams have one: the events the search questions are about)."""
    with open(path, "w", encoding="utf-8") as f:
        for stream, events in data.prepared:
            for at, event in events:
                line = {"id": event["id"], "stream": stream, "at_ms": at,
                        "latency_ms": event["metrics"]["latency_ms"]}
                if "message" in event["data"]:
                    line["message"] = event["data"]["message"]
                f.write(json.dumps(line, ensure_ascii=False) + "\n")


def run_anchor(name, command):
    """The JSON line a specialist prints; a specialist that fails stops the run."""
    print("-- %s: loading and asking" % name, file=sys.stderr)
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("%s failed (%s): %s" % (name, " ".join(command), done.stderr[-2000:]))
    return json.loads(done.stdout.strip().splitlines()[-1])


def duckdb_installed():
    return shutil.which("node") is not None and os.path.isdir(
        os.path.join(ANCHORS, "node_modules", "@duckdb", "node-api"))


def xapian_installed():
    return subprocess.run(["/usr/bin/python3", "-c", "import xapian"],
                          capture_output=True).returncode == 0


def specialists(data, truth, runs, svc_measured, svc_server):
    """Loads the same events into DuckDB and Xapian (each on disk, in a temporary directory),
    asks each its two questions `runs` times, checks the answers as eventsvc's are checked (a
    wrong one stops the run), and returns (the table's rows, a line on what was loaded).
    svc_measured: question -> eventsvc's (p50, p99, first) in seconds at the client, where it was
    measured; svc_server: the same of the server's own time for those answers (elapsed_ms)."""
    work = tempfile.mkdtemp(prefix="eventsvc-anchors-")
    try:
        events = os.path.join(work, "events.jsonl")
        write_anchor_events(data, events)
        duck = xap = None
        if duckdb_installed():
            duck = run_anchor("DuckDB", [
                "node", os.path.join(ANCHORS, "duckdb_anchor.mjs"), "--events", events,
                "--db", os.path.join(work, "events.duckdb"), "--week-from", str(truth.week_from),
                "--day-from", str(truth.day_from), "--to", str(data.end), "--runs", str(runs)])
        if xapian_installed():
            xap = run_anchor("Xapian", [
                "/usr/bin/python3", os.path.join(ANCHORS, "xapian_anchor.py"), "--events", events,
                "--db", os.path.join(work, "xapian"), "--day-from", str(truth.day_from),
                "--to", str(data.end), "--words", *truth.common_words, "--rare", truth.rare_word,
                "--runs", str(runs)])
    finally:
        shutil.rmtree(work)

    rows, loaded = [], []
    questions = []  # (question, engine, its output for it, the answer as checked, check)
    if duck:
        questions += [
            (STREAMS, "DuckDB", duck["streams"],
             {s: (c, t) for s, (c, t, _) in duck["streams"]["answer"].items()},
             expect_streams(truth.per_stream)),
            (BUCKETS, "DuckDB", duck["buckets"],
             {iso(int(k)): v for k, v in duck["buckets"]["answer"].items()},
             expect_buckets(truth.buckets))]
        loaded.append("DuckDB %s loaded %s events in %.1f s" % (
            duck["version"], "{:,}".format(data.events), duck["load_s"]))
    if xap:
        questions += [
            (TWO_WORDS, "Xapian", xap["two_words"], xap["two_words"]["answer"],
             expect_subset(truth.two_words, 25)),
            (RARE_WORD, "Xapian", xap["rare_word"], xap["rare_word"]["answer"],
             expect_exact(truth.rare))]
        loaded.append("Xapian %s indexed %s messages in %.1f s" % (
            xap["version"], "{:,}".format(xap["messages"]), xap["load_s"]))
    answered = {}
    for question, engine, output, answer, check in questions:
        problem = check(engine, answer)
        if problem:
            raise SystemExit("wrong answer from %s to '%s': %s" % (engine, question, problem))
        answered[question] = (output["p50_ms"] / 1000, output["p99_ms"] / 1000,
                              output["first_ms"] / 1000)

    for question, engine in ((TWO_WORDS, "Xapian"), (RARE_WORD, "Xapian"), (STREAMS, "DuckDB"),
                             (BUCKETS, "DuckDB")):
        mine = answered.get(question)
        text = " / ".join(map(fmt_ms, mine)) if mine else NOT_INSTALLED
        svc_p = svc_measured.get(question)
        server_p = svc_server.get(question)
        ratio = ""
        if svc_p and mine:
            ratio = "%.2f× %s's p99" % (svc_p[1] / mine[1], engine)
            if server_p:
                ratio += "; in the server %.2f×" % (server_p[1] / mine[1])
        rows.append((question, text if engine == "DuckDB" else "",
                     text if engine == "Xapian" else "",
                     " / ".join(map(fmt_ms, svc_p)) if svc_p else "",
                     " / ".join(map(fmt_ms, server_p)) if server_p else "", ratio))
    return rows, "; ".join(loaded)


def print_specialists(rows, loaded):
    print()
    print("specialists on the same events, each with its own schema (bench/README.md)" +
          (": " + loaded if loaded else ""))
    print()
    print("| question | DuckDB p50 / p99 / first | Xapian p50 / p99 / first | "
          "eventsvc p50 / p99 / first (HTTPS) | eventsvc in the server (elapsed_ms) | "
          "eventsvc vs specialist |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| %s |" % " | ".join(row))
    if loaded:
        print()
        print("every specialist's answer matched the generator's expectation")


def print_slowest(slowest):
    """Where a p99 came from: a question's two slowest eventsvc answers (of 100 answers or more
    the p99 is the faster of the two; of fewer, the slowest), which of its answers each was (1:
    the first), over HTTPS and in the server's own time, which tells the server's work from the
    round trip and the machine."""
    print()
    print("| eventsvc's two slowest answers of each question: which, HTTPS / in the server | "
          "slowest | second slowest (the p99 of 100 answers or more) |")
    print("|---|---|---|")
    for name, pairs in slowest:
        cells = ["#%d: %s / %s" % (index + 1, fmt_ms(https),
                                   fmt_ms(server) if server is not None else "–")
                 for index, (https, server) in reversed(pairs)]
        print("| %s | %s |" % (name, " | ".join(cells)))


SHAPES = {"classic": (Dataset, Truth), "production": (ProductionDataset, ProductionTruth)}
CLASSIC_ONLY = "n/a (classic shape only)"


def print_rows(rows, n, data, truth):
    print()
    print("### {:,} events — {} shape (seed {})".format(n, data.shape, data.seed))
    print()
    print("%d events; PostgreSQL 15 (jsonb, GIN jsonb_path_ops, tsvector GIN, btree on time and id)" % n)
    if data.shape == "production":
        print("asked for: " + truth.describe())
    print()
    print("| what | PostgreSQL 15 | eventsvc | eventsvc vs PostgreSQL |")
    print("|---|---|---|---|")
    for row in rows:
        print("| %s |" % " | ".join(row))
    print()


def main():
    parser = argparse.ArgumentParser()
    for name in ("eventsvc", "key", "eventsvc-data", "pg", "pg-data"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--eventsvc-pid", type=int, required=True)
    parser.add_argument("--pg-pid", type=int, required=True)
    parser.add_argument("--events", type=int, default=100000)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="classic",
                        help="classic: the three streams of the figures so far; production: five "
                             "streams shaped like production traffic (bench/README.md)")
    parser.add_argument("--seed", type=int, default=7,
                        help="7 is the seed the code is tuned on; 11 is held out (bench/README.md)")
    parser.add_argument("--questions-out",
                        help="write each question as both servers are asked it (eventsvc's path "
                             "and body, PostgreSQL's SQL and parameters) to this JSON file, for "
                             "restart.py to ask again")
    parser.add_argument("--load-only", action="store_true",
                        help="load both servers and stop after the ingest rows (then the backups "
                             "are measured on what was loaded)")
    args = parser.parse_args()

    end = int(time.time() * 1000) // MINUTE * MINUTE - MINUTE
    dataset, expectations = SHAPES[args.shape]
    data = dataset(args.events, end, seed=args.seed)
    print("-- generating %d events (%s shape, seed %d) and their expected answers" % (
        args.events, args.shape, args.seed), file=sys.stderr)
    truth = expectations(data)
    svc = Eventsvc(args.eventsvc, args.key)
    pg = Postgres(args.pg)
    pg.create()
    rows = []  # (what, postgres, eventsvc, ratio text)

    # Ingest: PostgreSQL first, then eventsvc; each alone on the machine.
    base_pg = disk_bytes(args.pg_data)
    base_svc = disk_bytes(args.eventsvc_data)
    pg_batches = [Postgres.rows_of(s, [e for _, e in ev]) for s, ev in data.prepared]
    svc_batches = [Eventsvc.body(s, [e for _, e in ev]) for s, ev in data.prepared]
    # The generated events stay in memory for the whole run: out of the collector's sight, so that
    # its full passes over millions of objects do not land inside timed requests (either server's).
    gc.freeze()
    pg_cpu0 = cpu_seconds(process_tree(args.pg_pid))
    pg_seconds, pg_latencies = load(pg_batches, lambda i, rows: pg.write(*rows), "postgres")
    pg_cpu = cpu_seconds(process_tree(args.pg_pid)) - pg_cpu0
    pg.rows("CHECKPOINT")

    svc_cpu0 = cpu_seconds([args.eventsvc_pid])
    svc_seconds, svc_latencies = load(svc_batches, lambda i, body: svc.write(body, "bench-%08d" % i),
                                      "eventsvc")
    accept_done = time.monotonic()
    while svc.backlog() > 0:
        time.sleep(0.2)
    drain = time.monotonic() - accept_done
    svc_cpu = cpu_seconds([args.eventsvc_pid]) - svc_cpu0
    searchable_seconds = svc_seconds + drain

    n = args.events
    def rate_row(what, pg_rate, svc_rate):
        rows.append((what, "{:,.0f} ev/s".format(pg_rate), "{:,.0f} ev/s".format(svc_rate),
                     "%.2f× (higher is better)" % (svc_rate / pg_rate)))
    rate_row("durable accept, %d connections, %d-event writes" % (CONNECTIONS, BATCH),
             n / pg_seconds, n / svc_seconds)
    pg_write = percentiles(pg_latencies)
    svc_write = percentiles(svc_latencies)
    rows.append(("write acknowledged, p50 / p99", "%s / %s" % tuple(map(fmt_ms, pg_write)),
                 "%s / %s" % tuple(map(fmt_ms, svc_write)),
                 "%.2f× PostgreSQL's p99" % (svc_write[1] / pg_write[1])))
    rate_row("searchable (indexed / projected)", n / pg_seconds, n / searchable_seconds)
    rows.append(("last 202 → everything searchable", "0 s (indexed at commit)", "%.1f s" % drain, ""))
    if args.load_only:
        print_rows(rows, n, data, truth)
        sys.stdout.flush()
        return

    # The questions, asked alternately, QUERY_RUNS times each in each of QUERY_ROUNDS rounds: every
    # question once, then every question again. The p99 is over all of a question's answers; the
    # first answer, which finds nothing of its question in memory, is shown apart.
    day = {"from": iso(truth.day_from), "to": iso(data.end)}
    svc_measured = {}  # question -> eventsvc's (p50, p99, first), for the specialists' table
    svc_server = {}  # question -> the same of the server's own elapsed_ms
    slowest = []  # (question, its slowest eventsvc answers as (HTTPS, in the server) seconds)
    asked = []  # (name, svc_call, pg_call, timings, the index of its row), in the order asked
    replayable = []  # the questions as data (--questions-out)

    def ask_round(svc_call, pg_call, timings, check=None, name=""):
        started_question = time.monotonic()
        for run in range(QUERY_RUNS):
            if run >= MIN_QUERY_RUNS and time.monotonic() - started_question > QUESTION_SECONDS:
                break  # a slow question: fewer runs, the p99 is then the slowest one
            for side, call in (("pg", pg_call), ("svc", svc_call)) if run % 2 else (
                    ("svc", svc_call), ("pg", pg_call)):
                started = time.perf_counter()
                answer = call()
                timings[side].append(time.perf_counter() - started)
                server = svc.last_elapsed() if side == "svc" else None
                if server is not None:
                    timings["svc_server"].append(server)
                if side == "svc":
                    timings["svc_pairs"].append((timings["svc"][-1], server))
                if check and run == 0:
                    problem = check(side, answer)
                    if problem:
                        raise SystemExit("wrong answer from %s to '%s': %s" % (side, name, problem))

    def ask(name, svc_call, pg_call, check, replay=None, expect=None):
        """`replay`: (eventsvc path, body, PostgreSQL SQL, parameters), as the calls send them;
        `expect`: the ids a replay must answer, when the generator knows them."""
        if replay:
            path, body, sql, params = replay
            replayable.append({"name": name, "eventsvc": {"path": path, "body": body},
                               "postgres": {"sql": sql, "params": list(params)},
                               "expect": expect})
        timings = {"pg": [], "svc": [], "svc_server": [], "svc_pairs": []}
        ask_round(svc_call, pg_call, timings, check, name)
        asked.append((name, svc_call, pg_call, timings, len(rows)))
        rows.append(None)  # filled in once every round is asked

    def ask_later_rounds():
        for _ in range(QUERY_ROUNDS - 1):
            for _, svc_call, pg_call, timings, _ in asked:
                ask_round(svc_call, pg_call, timings)
        for name, _, _, timings, row in asked:
            pg_p = p50_p99_first(timings["pg"])
            svc_p = p50_p99_first(timings["svc"])
            svc_measured[name] = svc_p
            if timings["svc_server"]:
                svc_server[name] = p50_p99_first(timings["svc_server"])
            slowest.append((name, sorted(enumerate(timings["svc_pairs"]),
                                         key=lambda p: p[1][0])[-2:]))
            runs = len(timings["pg"])
            label = name + (" (p50 / p99 / first)" if runs == QUERY_ROUNDS * QUERY_RUNS else
                            " (p50 / max of %d / first)" % runs)
            rows[row] = (label, " / ".join(map(fmt_ms, pg_p)), " / ".join(map(fmt_ms, svc_p)),
                         "%.2f× PostgreSQL's p99" % (svc_p[1] / pg_p[1]))

    search_sql = ("SELECT id FROM events WHERE tsv @@ to_tsquery('simple', %s) AND occurred_at "
                  "BETWEEN %s AND %s ORDER BY ts_rank(tsv, to_tsquery('simple', %s)) DESC LIMIT %s")
    words = " ".join(truth.common_words)
    tsquery = " & ".join(truth.common_words)
    rare = truth.rare_word
    def ask_ids(name, path, body, sql, params, expected, top=None):
        """A question both answer with the ids of `expected`: all of them, or `top` of them."""
        ask(name, lambda: [r["id"] for r in svc.post(path, body)["results"]],
            lambda: [r[0] for r in pg.rows(sql, params)],
            expect_subset(expected, top) if top else expect_exact(expected),
            (path, body, sql, params), {"ids": sorted(expected), "top": top})

    ask_ids("search, two common words, 24 h, top 25", "/v1/search",
            dict(day, query=words, limit=25), search_sql,
            (tsquery, day["from"], day["to"], tsquery, 25), truth.two_words, 25)
    ask_ids("search, a rare word, 24 h", "/v1/search", dict(day, query=rare, limit=100),
            search_sql, (rare, day["from"], day["to"], rare, 100), truth.rare)
    ask_ids("current state: 2 nested equalities + stream + range (orders)", "/v1/query", {
        "source": "current", "limit": 1000, "fields": ["id"],
        "where": {"payload.customer.tier": "gold", "payload.status": "paid", "stream": "orders",
                  "payload.total": {"gt": 900}}},
            "SELECT id FROM current_events WHERE doc @> %s AND stream = 'orders' "
            "AND (doc->'data'->>'total')::numeric > 900 LIMIT 1000",
            (json.dumps({"data": {"customer": {"tier": "gold"}, "status": "paid"}}),),
            truth.orders)
    ask_ids("the same shape on sensors", "/v1/query", {
        "source": "current", "limit": 1000, "fields": ["id"],
        "where": {"payload.device.site": truth.sensor_site, "payload.status": "warn",
                  "stream": "sensors", "payload.reading.humidity": {"gt": 50}}},
            "SELECT id FROM current_events WHERE doc @> %s AND stream = 'sensors' "
            "AND (doc->'data'->'reading'->>'humidity')::numeric > 50 LIMIT 1000",
            (json.dumps({"data": {"device": {"site": truth.sensor_site}, "status": "warn"}}),),
            truth.sensors)
    if data.shape == "production":
        # One exact value of a high-cardinality field, over every version: the GIN index of
        # PostgreSQL's history table against eventsvc's per-chunk value index.
        ask_ids("history: one exact high-cardinality value (data.ip), every match", "/v1/query", {
            "source": "history", "limit": 1000, "fields": ["id"],
            "where": {"payload.ip": truth.ip, "timestamp": {"gte": iso(truth.week_from)}}},
                "SELECT id FROM events WHERE doc @> %s AND occurred_at >= %s LIMIT 1000",
                (json.dumps({"data": {"ip": truth.ip}}), iso(truth.week_from)),
                truth.ip_matches)

    streams_body = {
        "source": "history", "where": {"timestamp": {"gte": iso(truth.week_from)}},
        "group_by": ["stream"], "include_results": False,
        "aggregations": {"n": {"op": "count"},
                         "total": {"op": "sum", "field": "metrics.latency_ms"},
                         "mean": {"op": "avg", "field": "metrics.latency_ms"}}}
    streams_sql = ("SELECT stream, count(*), sum((doc->'metrics'->>'latency_ms')::bigint), "
                   "avg((doc->'metrics'->>'latency_ms')::bigint) FROM events "
                   "WHERE occurred_at >= %s GROUP BY stream")
    streams_params = (iso(truth.week_from),)

    def svc_streams():
        answer = svc.post("/v1/analyze", streams_body)
        if not answer["complete"]:
            return {"incomplete": True}
        return {g["key"]["stream"]: (g["count"], int(round(g["aggregations"]["total"]["value"])))
                for g in answer["groups"]}

    ask("history 7 days: count, sum and avg grouped by stream",
        svc_streams,
        lambda: {r[0]: (r[1], int(r[2])) for r in pg.rows(streams_sql, streams_params)},
        expect_streams(truth.per_stream),
        ("/v1/analyze", streams_body, streams_sql, streams_params))

    buckets_body = {
        "source": "history", "where": {"timestamp": {"gte": day["from"], "lte": day["to"]}},
        "time_bucket": {"interval": "5m"}, "group_limit": 1000, "include_results": False}
    buckets_sql = ("SELECT floor(extract(epoch FROM occurred_at) * 1000 / 300000) * 300000, "
                   "count(*) FROM events WHERE occurred_at BETWEEN %s AND %s GROUP BY 1")
    buckets_params = (day["from"], day["to"])

    def svc_buckets():
        answer = svc.post("/v1/analyze", buckets_body)
        return {g["key"]["bucket"]: g["count"] for g in answer["groups"]}

    ask("history 24 h: 5-minute buckets",
        svc_buckets,
        lambda: {iso(int(r[0])): r[1] for r in pg.rows(buckets_sql, buckets_params)},
        expect_buckets(truth.buckets),
        ("/v1/analyze", buckets_body, buckets_sql, buckets_params))

    if data.shape == "classic":
        # A decision pack over the week's sensor readings by site, at the default budget, against
        # what its facts alone cost a PostgreSQL team: per (site, attribute) of the newest 50,000
        # readings, the latest value with the count and range of the readings (no transitions,
        # contradictions or budget). The pack's facts must be PostgreSQL's latest values.
        pack_body = {"source": "history", "scan_limit": 50000, "include_results": False,
                     "where": {"stream": "sensors", "timestamp": {"gte": iso(truth.week_from)}},
                     "group_by": ["payload.device.site"], "context": {"mode": "decision"}}
        pack_sql = """
          WITH m AS (
            SELECT id, occurred_at, doc FROM events
            WHERE stream = 'sensors' AND occurred_at >= %s
            ORDER BY occurred_at DESC, id DESC LIMIT 50000),
          o AS (
            SELECT m.doc #>> '{data,device,site}' AS site, a.attribute, a.value, m.occurred_at,
              m.id
            FROM m CROSS JOIN LATERAL (VALUES
              ('payload.device.model', m.doc #> '{data,device,model}'),
              ('payload.reading.temp', m.doc #> '{data,reading,temp}'),
              ('payload.reading.humidity', m.doc #> '{data,reading,humidity}'),
              ('payload.status', m.doc #> '{data,status}'),
              ('metrics.latency_ms', m.doc #> '{metrics,latency_ms}'),
              ('metrics.battery', m.doc #> '{metrics,battery}')) AS a(attribute, value)
            WHERE a.value IS NOT NULL)
          SELECT DISTINCT ON (site, attribute) site, attribute, value::text, count(*) OVER w,
            min(CASE WHEN jsonb_typeof(value) = 'number' THEN value::numeric END) OVER w,
            max(CASE WHEN jsonb_typeof(value) = 'number' THEN value::numeric END) OVER w
          FROM o WINDOW w AS (PARTITION BY site, attribute)
          ORDER BY site, attribute, occurred_at DESC, id DESC"""

        def pg_facts():
            return {(r[0], r[1]): json.loads(r[2])
                    for r in pg.rows(pack_sql, (iso(truth.week_from),))}

        latest = pg_facts()
        packs = []

        def svc_pack():
            packs.append(svc.post("/v1/analyze", pack_body)["context"])
            return {(f["subject"], f["attribute"]): f["value"] for f in packs[-1]["facts"]}

        def same_facts(side, facts):
            if not facts:
                return "no facts"
            if side == "pg":
                return None if facts == latest else "PostgreSQL's answer changed"
            wrong = [k for k, v in facts.items() if latest.get(k) != v]
            if wrong or len(facts) != min(20, len(latest)):
                return "%d facts, %d not PostgreSQL's latest value (%s)" % (
                    len(facts), len(wrong), wrong[:3])
            return None

        ask("decision pack over the week's sensor readings by site, budget 4000; PostgreSQL: "
            "latest value, count and range per (site, attribute)", svc_pack, pg_facts, same_facts)
        context = packs[-1]
        compaction = context["compaction"]
        rows.append(("decision pack: what it kept of %s readings" % "{:,}".format(
            compaction["source_records"]), "%d (site, attribute) latest values" % len(latest),
            "%d facts in %d tokens" % (len(context["facts"]), compaction["packed_tokens"]),
            "%.0f× smaller than the records" % (
                compaction["source_tokens"] / compaction["packed_tokens"])))
    else:
        # Its SQL unpivots the classic readings' six fields; the production shape keeps to the
        # questions both servers answer alike.
        rows.append(("decision pack over the week's sensor readings by site", CLASSIC_ONLY,
                     CLASSIC_ONLY, ""))
        rows.append(("decision pack: what it kept", CLASSIC_ONLY, CLASSIC_ONLY, ""))

    if args.questions_out:
        with open(args.questions_out, "w") as out:
            json.dump(replayable, out)
    ask_later_rounds()

    pg.rows("CHECKPOINT")
    pg_disk = disk_bytes(args.pg_data) - base_pg
    svc_disk = disk_bytes(args.eventsvc_data) - base_svc
    rows.append(("disk per event (data + WAL)", "%.2f kB" % (pg_disk / n / 1000),
                 "%.2f kB" % (svc_disk / n / 1000), "%.2f×" % (svc_disk / pg_disk)))
    rows.append(("eventsvc peak RSS", "", "%.0f MiB" % (peak_rss_bytes(args.eventsvc_pid) / 2**20), ""))
    rows.append(("server CPU per 1,000 events ingested", "%.0f ms" % (pg_cpu * 1e6 / n),
                 "%.0f ms" % (svc_cpu * 1e6 / n), "%.2f×" % (svc_cpu / pg_cpu)))

    # Last, so that its events touch no other figure: how long a write takes to be verified at
    # 80% of the searchable rate measured above, with events shaped as the data set's.
    rate = max(BATCH, int(n / searchable_seconds * 0.8) // BATCH * BATCH)
    lags, achieved = verification_lag(svc, rate, 20, data.end + MINUTE, data.prepared)
    lag_p50, lag_p99 = percentiles(lags)
    rows.append(("202 → receipt verified at {:,} ev/s, 80% of searchable ({:,.0f} acknowledged; "
                 "p50 / p99)".format(rate, achieved),
                 "0 (indexed at commit)", "%.2f s / %.2f s" % (lag_p50, lag_p99), ""))

    if data.shape == "classic":
        # The compaction target: 10,000 readings of 20 sensors, default budget (a quality figure
        # with no PostgreSQL equivalent; its events are written after every other figure).
        plant, plant_timings = plant_pack(svc, int(time.time() * 1000))
        compaction = plant["compaction"]
        if len(plant["facts"]) != 20 or not plant["proof"]["complete"]:
            raise SystemExit("the 10,000-reading pack kept %d facts, proof complete %s" % (
                len(plant["facts"]), plant["proof"]["complete"]))
        rows.append(("decision pack, 10,000 readings of 20 sensors, budget 4000 (p50 / p99)", "",
                     "%s / %s" % tuple(map(fmt_ms, percentiles(plant_timings))),
                     "20 facts, %d transitions, proof complete, %d of %s tokens: %.0f× "
                     "compaction" % (len(plant["timeline"]), compaction["packed_tokens"],
                                     "{:,}".format(compaction["source_tokens"]),
                                     compaction["source_tokens"] / compaction["packed_tokens"])))
    else:
        # Its own 10,000 readings, the same whatever the shape: measured with the classic one.
        rows.append(("decision pack, 10,000 readings of 20 sensors, budget 4000", "",
                     CLASSIC_ONLY, ""))

    print_rows(rows, n, data, truth)
    print("every answer matched the generator's expectation")
    print_slowest(slowest)
    sys.stdout.flush()

    # After every other figure, with eventsvc and PostgreSQL idle: the specialists, on the same
    # events, against eventsvc's timings of the same questions above.
    print_specialists(*specialists(data, truth, QUERY_ROUNDS * QUERY_RUNS, svc_measured,
                                   svc_server))


if __name__ == "__main__":
    main()
