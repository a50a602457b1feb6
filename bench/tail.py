#!/usr/bin/env python3
"""Live tails: how soon a written event reaches the clients that follow it, eventsvc against
PostgreSQL, with 50 followers open while 10,000 events/s are written.

  eventsvc    50 clients each hold GET /v1/tail?where={"payload.shard": k}&fields=id open (one
              shard of 50 each); writers POST /v1/events in batches of 100 at the offered rate
  PostgreSQL  an AFTER INSERT trigger runs pg_notify('shard_<k>', id) per row; 50 clients each
              LISTEN to one shard's channel; writers INSERT batches of 100 rows (jsonb) in one
              transaction each, committed (fsync) before the write counts as answered

Measured per event: from the write's answer (202 / COMMIT returned) to the moment its follower
received it; p50, p99 and the largest, over every event of the run. Checked: every event reached
its follower exactly once.
"""
import argparse
import json
import os
import select
import sys
import threading
import time
from urllib.parse import quote

import psycopg2
import psycopg2.extensions
import psycopg2.extras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Eventsvc, fmt_ms, load, percentiles, streaming_connection  # noqa: E402
from production_shape import ProductionDataset  # noqa: E402

BATCH = 100
WRITERS = 8


class Run:
    """What one side's run saw: when each event's write was answered, and when it arrived."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answered = {}   # event id -> monotonic time its write was answered
        self.arrived = {}    # event id -> monotonic time its follower received it
        self.duplicates = 0

    def arrive(self, event_id):
        now = time.monotonic()
        with self.lock:
            if event_id in self.arrived:
                self.duplicates += 1
            else:
                self.arrived[event_id] = now

    def latencies(self):
        return [max(0.0, self.arrived[i] - t) for i, t in self.answered.items() if i in self.arrived]


def write_at_rate(run, write_batch, prefix, rate, seconds, shards):
    """Writes rate*seconds events in batches of BATCH, each batch started at its slot."""
    batches = int(rate * seconds / BATCH)
    next_batch = [0]
    lock = threading.Lock()
    started = time.monotonic()

    def writer():
        while True:
            with lock:
                n = next_batch[0]
                next_batch[0] += 1
            if n >= batches:
                return
            due = started + n * BATCH / rate
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            events = [("%s-%d" % (prefix, n * BATCH + i), (n * BATCH + i) % shards)
                      for i in range(BATCH)]
            write_batch(n, events)
            answered = time.monotonic()
            with run.lock:
                for event_id, _ in events:
                    run.answered[event_id] = answered

    threads = [threading.Thread(target=writer) for _ in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - started, batches * BATCH


def await_arrivals(run, expected, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with run.lock:
            if len(run.arrived) >= expected:
                return
        time.sleep(0.05)


def pg_side(dsn, tails, rate, seconds):
    setup = psycopg2.connect(dsn)
    setup.autocommit = True
    with setup.cursor() as c:
        c.execute("DROP TABLE IF EXISTS tail_events")
        c.execute("CREATE TABLE tail_events (id text PRIMARY KEY, shard int, doc jsonb)")
        c.execute("""CREATE OR REPLACE FUNCTION tail_notify() RETURNS trigger AS $$
                     BEGIN PERFORM pg_notify('shard_' || NEW.shard, NEW.id); RETURN NEW; END
                     $$ LANGUAGE plpgsql""")
        c.execute("CREATE TRIGGER tail_events_notify AFTER INSERT ON tail_events "
                  "FOR EACH ROW EXECUTE FUNCTION tail_notify()")
    run = Run()
    stopping = threading.Event()
    ready = threading.Barrier(tails + 1)

    def listener(shard):
        conn = psycopg2.connect(dsn)
        conn.set_isolation_level(psycopg2.extensions.ISOLATION_LEVEL_AUTOCOMMIT)
        with conn.cursor() as c:
            c.execute("LISTEN shard_%d" % shard)
        ready.wait()
        while not stopping.is_set():
            if select.select([conn], [], [], 0.2) == ([], [], []):
                continue
            conn.poll()
            while conn.notifies:
                run.arrive(conn.notifies.pop(0).payload)
        conn.close()

    threads = [threading.Thread(target=listener, args=(k,)) for k in range(tails)]
    for t in threads:
        t.start()
    ready.wait()
    local = threading.local()

    def write_batch(_, events):
        if not hasattr(local, "conn"):
            local.conn = psycopg2.connect(dsn)
        with local.conn.cursor() as c:
            psycopg2.extras.execute_values(
                c, "INSERT INTO tail_events (id, shard, doc) VALUES %s",
                [(i, k, json.dumps({"id": i, "type": "tick", "data": {"shard": k}}))
                 for i, k in events])
        local.conn.commit()

    elapsed, written = write_at_rate(run, write_batch, "pg", rate, seconds, tails)
    await_arrivals(run, written)
    stopping.set()
    for t in threads:
        t.join()
    return run, elapsed, written


def svc_side(url, key, tails, rate, seconds):
    svc = Eventsvc(url, key)
    run = Run()
    stopping = threading.Event()
    opened = threading.Barrier(tails + 1)

    def follower(shard):
        conn = streaming_connection(url, timeout=5)
        where = quote(json.dumps({"payload.shard": shard}))
        conn.request("GET", "/v1/tail?fields=id&where=" + where,
                     headers={"Authorization": "Bearer " + key})
        response = conn.getresponse()
        if response.status != 200:
            raise SystemExit("tail refused: %d %s" % (response.status, response.read()[:300]))
        opened.wait()
        while not stopping.is_set():
            try:
                line = response.readline()
            except (TimeoutError, OSError):
                continue
            if not line:
                break
            if line.startswith(b"data: {\"id\""):
                run.arrive(json.loads(line[6:])["id"])
        conn.close()

    threads = [threading.Thread(target=follower, args=(k,)) for k in range(tails)]
    for t in threads:
        t.start()
    opened.wait()
    stamp = "%d" % time.time()

    def write_batch(n, events):
        body = {"stream": "tail-bench", "events": [
            {"id": i, "type": "tick", "occurred_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "data": {"shard": k}} for i, k in events]}
        svc.post("/v1/events", body, {"Idempotency-Key": "tail-%s-%06d" % (stamp, n)})

    elapsed, written = write_at_rate(run, write_batch, "svc" + stamp, rate, seconds, tails)
    await_arrivals(run, written)
    stopping.set()
    for t in threads:
        t.join()
    return run, elapsed, written


def preload(url, key, events, settle):
    """Writes `events` production-shape events first, as bench/run.sh's load does (16 connections),
    so that the tails run while the load's merges and compactions still do."""
    data = ProductionDataset(events, int(time.time() * 1000), seed=7)
    svc = Eventsvc(url, key)
    bodies = [Eventsvc.body(stream, [e for _, e in batch]) for stream, batch in data.prepared]
    seconds, _ = load(bodies, lambda i, body: svc.write(body, "preload-%08d" % i), "eventsvc")
    print("preloaded %d events in %.1f s" % (events, seconds))
    time.sleep(settle)


def main():
    parser = argparse.ArgumentParser()
    for name in ("eventsvc", "key", "pg"):
        parser.add_argument("--" + name, required=name != "pg")
    parser.add_argument("--tails", type=int, default=50)
    parser.add_argument("--rate", type=int, default=10000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--only", choices=("eventsvc",), help="run eventsvc's side alone (to profile it)")
    parser.add_argument("--preload", type=int, default=0,
                        help="with --only: first write this many production-shape events (seed 7)")
    parser.add_argument("--settle", type=float, default=5,
                        help="with --preload: seconds between the load's last 202 and the tails")
    args = parser.parse_args()
    if args.only:
        if args.preload:
            preload(args.eventsvc, args.key, args.preload, args.settle)
        run, elapsed, written = svc_side(args.eventsvc, args.key, args.tails, args.rate, args.seconds)
        p50, p99 = percentiles(run.latencies())
        print("eventsvc: %.0f events/s written, %d of %d received, p50 %s, p99 %s"
              % (written / elapsed, len(run.arrived), written, fmt_ms(p50), fmt_ms(p99)))
        return

    results = {}
    for name, side in (("PostgreSQL", lambda: pg_side(args.pg, args.tails, args.rate, args.seconds)),
                       ("eventsvc", lambda: svc_side(args.eventsvc, args.key, args.tails, args.rate,
                                                     args.seconds))):
        run, elapsed, written = side()
        latencies = run.latencies()
        if len(latencies) != written or run.duplicates:
            raise SystemExit("%s: %d of %d events arrived, %d twice"
                             % (name, len(latencies), written, run.duplicates))
        results[name] = (percentiles(latencies), max(latencies), written / elapsed)
    (pg_p50, pg_p99), pg_max, pg_rate = results["PostgreSQL"]
    (svc_p50, svc_p99), svc_max, svc_rate = results["eventsvc"]
    print("| live tail, %d followers | PostgreSQL 15 (NOTIFY/LISTEN) | eventsvc | eventsvc / PostgreSQL |"
          % args.tails)
    print("|---|---|---|---|")
    print("| events/s written (offered %d) | %.0f | %.0f | |" % (args.rate, pg_rate, svc_rate))
    print("| written → received, p50 / p99 | %s / %s | %s / %s | %.2f× |"
          % (fmt_ms(pg_p50), fmt_ms(pg_p99), fmt_ms(svc_p50), fmt_ms(svc_p99), svc_p99 / pg_p99))
    print("| written → received, largest | %s | %s | |" % (fmt_ms(pg_max), fmt_ms(svc_max)))


if __name__ == "__main__":
    main()
