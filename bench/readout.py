#!/usr/bin/env python3
"""Getting events out: export and paging, eventsvc against PostgreSQL, on what compare.py loaded.

  export   every version of the last 7 days (all of the loaded data):
             eventsvc    POST /v1/exports, NDJSON (each line its cursor and the record), read to
                         the end and counted; once plain, once with Accept-Encoding: gzip
             PostgreSQL  COPY (SELECT doc FROM events WHERE occurred_at >= $1
                         ORDER BY occurred_at, id) TO STDOUT over TLS, read to the end and counted
           first each read once in this process (psycopg2's COPY, a Python call per row;
           http.client), PostgreSQL first; then three more times each by the server's own
           command-line client into `wc -l` (psql, curl: as an operator exports to a file),
           alternating which server goes first, the median of those three being the rate
           compared (a single read of either server moved by half between runs);
           events/s, and the server's resident memory before and at its largest during the export
           (sampled every 20 ms; PostgreSQL: the sum over its processes).
  paging   the broadest query, history newest first, 100 a page, each row's id and timestamp:
           page 1 and page 1,000 (or the last page, when there are fewer), 100 runs each,
           interleaved:
             eventsvc    POST /v1/query with fields [id, timestamp], page 1,000 with the cursor
                         page 999 gave
             PostgreSQL  keyset: WHERE occurred_at >= $1 [AND (occurred_at, id) < ($2, $3)]
                         ORDER BY occurred_at DESC, id DESC LIMIT 100 (ids bytewise, as
                         eventsvc orders them)
Checked: both exports hold every loaded version; both page 1,000s hold the same ids.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import zlib

import psycopg2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import (Eventsvc, fmt_ms, percentiles, process_tree,  # noqa: E402
                     streaming_connection)

PAGE = 100
DEEP_PAGE = 1000
RUNS = 100
EXPORT_ROUNDS = 3
# What both of PostgreSQL's exports copy out, the bounds given as two %s.
COPY_SELECT = "SELECT doc FROM events WHERE occurred_at BETWEEN %s AND %s ORDER BY occurred_at, id"


def rss_bytes(pids):
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class MemoryWatch:
    """The resident memory of a process tree, sampled every 20 ms while it lives."""

    def __init__(self, root):
        self.root = root
        self.before = rss_bytes(process_tree(root))
        self.largest = self.before
        self.running = True
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self):
        while self.running:
            self.largest = max(self.largest, rss_bytes(process_tree(self.root)))
            time.sleep(0.02)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.before, self.largest


def svc_export(url, key, body, gzip):
    conn = streaming_connection(url, timeout=600)
    headers = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
    if gzip:
        headers["Accept-Encoding"] = "gzip"
    started = time.monotonic()
    conn.request("POST", "/v1/exports", json.dumps(body), headers)
    response = conn.getresponse()
    if response.status != 200:
        raise RuntimeError("export: %d %s" % (response.status, response.read()[:300]))
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzip else None
    lines = 0
    wire = 0
    while True:
        chunk = response.read(1 << 20)
        if not chunk:
            break
        wire += len(chunk)
        lines += (inflater.decompress(chunk) if inflater else chunk).count(b"\n")
    conn.close()
    return lines, time.monotonic() - started, wire


class Counter:
    """A file object for COPY TO: counts lines and bytes."""

    def __init__(self):
        self.lines = 0
        self.bytes = 0

    def write(self, data):
        data = data.encode() if isinstance(data, str) else data
        self.lines += data.count(b"\n")
        self.bytes += len(data)


class Span:
    """The loaded events' time span, as both servers are asked for it."""

    def __init__(self, since, until):
        self.since, self.until = since, until

    def where(self):
        return {"timestamp": {"gte": self.since.astimezone().isoformat(),
                              "lte": self.until.astimezone().isoformat()}}


def pg_export(dsn, since, until):
    conn = psycopg2.connect(dsn)
    sink = Counter()
    started = time.monotonic()
    with conn.cursor() as cursor:
        query = cursor.mogrify(COPY_SELECT, (since, until)).decode()
        cursor.copy_expert("COPY (%s) TO STDOUT" % query, sink)
    conn.close()
    return sink.lines, time.monotonic() - started, sink.bytes


def counted_lines(command):
    """Runs `command | wc -l`: lines and seconds from start to the last line counted."""
    started = time.monotonic()
    producer = subprocess.Popen(command, stdout=subprocess.PIPE)
    counted = subprocess.run(["wc", "-l"], stdin=producer.stdout, capture_output=True, check=True)
    producer.stdout.close()
    if producer.wait() != 0:
        raise RuntimeError("%s exited with %d" % (command[0], producer.returncode))
    return int(counted.stdout), time.monotonic() - started


def curl_export(url, key, body):
    # -k: the bench's server certificate is its own, as Eventsvc's exchanges do not verify it.
    return counted_lines(["curl", "-sS", "-k", "--fail", "-H", "Authorization: Bearer " + key,
                          "-H", "Content-Type: application/json", "--data-binary",
                          json.dumps(body), url + "/v1/exports"])


def psql_export(dsn, since, until):
    query = COPY_SELECT % ("'%s'" % since.isoformat(), "'%s'" % until.isoformat())
    return counted_lines(["/usr/lib/postgresql/15/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1",
                          dsn, "-c", "COPY (%s) TO STDOUT" % query])


def mib(n):
    return "%.0f MiB" % (n / 1048576)


def check_exported(name, lines, expected):
    if lines != expected:
        raise SystemExit("%s exported %d versions, expected %d" % (name, lines, expected))


def export_rows(args, span, expected):
    rows = []
    watch = MemoryWatch(args.pg_pid)
    pg_lines, pg_s, pg_bytes = pg_export(args.pg, span.since, span.until)
    pg_before, pg_largest = watch.stop()
    results = {}
    for gzip in (False, True):
        watch = MemoryWatch(args.eventsvc_pid)
        results[gzip] = svc_export(args.eventsvc, args.key,
                                   {"source": "history", "where": span.where()}, gzip)
        results[gzip] += watch.stop()
    for lines, name in ((pg_lines, "PostgreSQL"), (results[False][0], "eventsvc"),
                        (results[True][0], "eventsvc gzip")):
        check_exported(name, lines, expected)
    # The first reads above find each server's pages wherever its load left them, and one read
    # of each moved by half between runs: the command-line reads alternate which server goes
    # first, and their median is the rate compared.
    cli = {"pg": [], "svc": []}
    largest = {"pg": pg_largest, "svc": 0}
    for round_ in range(EXPORT_ROUNDS):
        for who in (("svc", "pg") if round_ % 2 == 0 else ("pg", "svc")):
            watch = MemoryWatch(args.pg_pid if who == "pg" else args.eventsvc_pid)
            lines, seconds = (psql_export(args.pg, span.since, span.until) if who == "pg" else
                              curl_export(args.eventsvc, args.key,
                                          {"source": "history", "where": span.where()}))
            largest[who] = max(largest[who], watch.stop()[1])
            check_exported("psql" if who == "pg" else "curl", lines, expected)
            cli[who].append(lines / seconds)
    svc_lines, svc_s, svc_bytes, svc_before, svc_largest = results[False]
    _, gz_s, gz_bytes, gz_before, gz_largest = results[True]
    rows.append("| export every version (%d), events/s, first read, in this process | %.0f | "
                "%.0f | %.2f× |" % (expected, pg_lines / pg_s, svc_lines / svc_s,
                             (svc_lines / svc_s) / (pg_lines / pg_s)))
    pg_rate, svc_rate = statistics.median(cli["pg"]), statistics.median(cli["svc"])
    rows.append("| export every version, events/s, median of %d reads by `psql` / `curl` "
                "alternating (slowest-fastest) | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | **%.2f×** |"
                % (EXPORT_ROUNDS, pg_rate, min(cli["pg"]), max(cli["pg"]), svc_rate,
                   min(cli["svc"]), max(cli["svc"]), svc_rate / pg_rate))
    rows.append("| export, bytes sent | %s | %s plain, %s gzip (%.0f ev/s) | |"
                % (mib(pg_bytes), mib(svc_bytes), mib(gz_bytes), svc_lines / gz_s))
    rows.append("| export, server memory before → largest during | %s → %s | %s → %s (gzip: → %s) | |"
                % (mib(pg_before), mib(largest["pg"]), mib(svc_before),
                   mib(max(svc_largest, largest["svc"])), mib(gz_largest)))
    return rows


def paging_rows(args, span):
    svc = Eventsvc(args.eventsvc, args.key)
    # The same projection on both sides: PostgreSQL's keyset query selects (id, occurred_at).
    body = {"source": "history", "where": span.where(), "limit": PAGE,
            "fields": ["id", "timestamp"]}
    cursor, page = None, 1
    while page < DEEP_PAGE:
        answer = svc.post("/v1/query" + ("?cursor=" + cursor if cursor else ""), body)
        if "next_cursor" not in answer:
            break
        cursor, page = answer["next_cursor"], page + 1
    deep = page
    svc_deep = svc.post("/v1/query?cursor=" + cursor, body) if cursor else None
    pg = psycopg2.connect(args.pg)

    def pg_page(position):
        with pg.cursor() as c:
            if position is None:
                c.execute("SELECT id, occurred_at FROM events WHERE occurred_at BETWEEN %s AND %s "
                          "ORDER BY occurred_at DESC, id COLLATE \"C\" DESC LIMIT %s",
                          (span.since, span.until, PAGE))
            else:
                c.execute("SELECT id, occurred_at FROM events WHERE occurred_at BETWEEN %s AND %s "
                          "AND (occurred_at, id COLLATE \"C\") < (%s, %s) "
                          "ORDER BY occurred_at DESC, id COLLATE \"C\" DESC LIMIT %s",
                          (span.since, span.until, position[1], position[0], PAGE))
            rows = c.fetchall()
        pg.commit()
        return rows

    # PostgreSQL's position for page `deep`: the last row of page deep - 1.
    position = None
    for _ in range(deep - 1):
        position = pg_page(position)[-1]
    pg_deep_ids = [row[0] for row in pg_page(position)]
    if svc_deep is not None and sorted(r["id"] for r in svc_deep["results"]) != sorted(pg_deep_ids):
        raise SystemExit("page %d differs between eventsvc and PostgreSQL" % deep)

    times = {"pg1": [], "pgN": [], "svc1": [], "svcN": []}
    for run in range(RUNS):
        order = (("pg", "svc") if run % 2 == 0 else ("svc", "pg"))
        for who in order:
            for label, arg in (("1", None), ("N", position if who == "pg" else cursor)):
                started = time.monotonic()
                if who == "pg":
                    pg_page(arg)
                else:
                    svc.post("/v1/query" + ("?cursor=" + arg if arg else ""), body)
                times[who + label].append(time.monotonic() - started)
    rows = []
    for label, name in (("1", "page 1"), ("N", "page %d" % deep)):
        pg_p50, pg_p99 = percentiles(times["pg" + label])
        svc_p50, svc_p99 = percentiles(times["svc" + label])
        rows.append("| paged query, history newest first, %d a page: %s, p50 / p99 | %s / %s | "
                    "%s / %s | %.2f× |" % (PAGE, name, fmt_ms(pg_p50), fmt_ms(pg_p99),
                                          fmt_ms(svc_p50), fmt_ms(svc_p99), svc_p99 / pg_p99))
    return rows


def main():
    parser = argparse.ArgumentParser()
    for name in ("eventsvc", "key", "pg"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--eventsvc-pid", type=int, required=True)
    parser.add_argument("--pg-pid", type=int, required=True)
    args = parser.parse_args()

    pg = psycopg2.connect(args.pg)
    with pg.cursor() as c:
        c.execute("SELECT min(occurred_at), max(occurred_at) FROM events")
        oldest, newest = c.fetchone()
        # Both servers hold the loaded events; eventsvc also holds what compare.py wrote to it
        # alone: its receipts' lag probes, after the loaded events' time (the span leaves those
        # out), and in a full run of the classic shape a decision pack's readings over the last
        # hours (stream `plant`): both servers are asked for what came before the first of them.
        planted = Eventsvc(args.eventsvc, args.key).post("/v1/query", {
            "source": "history", "order": "asc", "limit": 1,
            "where": {"stream": "plant", "timestamp": {"gte": oldest.isoformat()}}})["results"]
        if planted:
            first = datetime.datetime.fromisoformat(planted[0]["timestamp"])
            newest = min(newest, first - datetime.timedelta(milliseconds=1))
        c.execute("SELECT count(*) FROM events WHERE occurred_at BETWEEN %s AND %s",
                  (oldest, newest))
        expected = c.fetchone()[0]
    pg.close()
    span = Span(oldest, newest)
    print("| getting events out | PostgreSQL 15 | eventsvc | eventsvc / PostgreSQL |")
    print("|---|---|---|---|")
    for row in export_rows(args, span, expected):
        print(row, flush=True)
    for row in paging_rows(args, span):
        print(row, flush=True)


if __name__ == "__main__":
    main()
