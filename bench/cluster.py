#!/usr/bin/env python3
"""One load against eventsvc servers: accepted and verified events per second, query latency.

    cluster.py KEY URL [URL...]

Writes WRITES batches of 100 events from 16 threads, spread round-robin over the servers; polls
every receipt on the server that accepted it until it reads `verified`; then runs QUERIES
queries (an exact count over the workspace, a search, a structured query, in turn) spread over the
servers from 8 threads. Prints one JSON line.
"""
import concurrent.futures
import itertools
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Eventsvc, iso, percentiles  # noqa: E402

WRITES = int(os.environ.get("WRITES", "400"))
QUERIES = int(os.environ.get("QUERIES", "300"))
BATCH = 100


def main():
    key, urls = sys.argv[1], sys.argv[2:]
    servers = [Eventsvc(url, key) for url in urls]
    now = int(time.time() * 1000)
    run = "%x" % now

    def batch(n):
        return Eventsvc.body("bench", [
            {"id": "s%d-%d" % (n % 500, j), "type": "reading", "occurred_at": iso(now - n * 1000 - j),
             "data": {"site": "site-%d" % (j % 20), "value": (n * 7 + j) % 1000,
                      "note": "reading %d of run %s" % (j, run)}}
            for j in range(BATCH)])

    bodies = [batch(n) for n in range(WRITES)]
    receipts = [None] * WRITES
    started = time.monotonic()

    def write(n):
        server = servers[n % len(servers)]
        receipts[n] = server.write(bodies[n], "bench-%s-%06d" % (run, n))["receipt_id"]

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(write, range(WRITES)))
    accepted_seconds = time.monotonic() - started

    pending = set(range(WRITES))
    while pending:
        for n in list(pending):
            status, body = servers[n % len(servers)].get("/v1/receipts/" + receipts[n])
            if status == 200 and body["status"] in ("verified", "conflict"):
                pending.discard(n)
        if pending:
            time.sleep(0.02)
    verified_seconds = time.monotonic() - started

    window = {"timestamp": {"gte": "now-30d"}}
    questions = itertools.cycle([
        ("/v1/analyze", {"where": window, "aggregations": {"n": {"op": "count"}}}),
        ("/v1/search", {"query": "reading run " + run, "limit": 20}),
        ("/v1/query", {"where": {"payload.site": "site-3"}, "limit": 100}),
    ])
    asks = [next(questions) for _ in range(QUERIES)]
    latencies = []
    lock = threading.Lock()

    def ask(n):
        path, body = asks[n]
        sent = time.monotonic()
        servers[n % len(servers)].post(path, body)
        with lock:
            latencies.append(time.monotonic() - sent)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(ask, range(QUERIES)))
    p50, p99 = percentiles(latencies)
    events = WRITES * BATCH
    print(json.dumps({
        "servers": len(servers), "events": events,
        "accepted_per_s": round(events / accepted_seconds),
        "verified_per_s": round(events / verified_seconds),
        "query_p50_ms": round(p50 * 1000, 1), "query_p99_ms": round(p99 * 1000, 1)}))


if __name__ == "__main__":
    main()
