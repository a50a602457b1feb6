#!/usr/bin/env python3
"""One cheap question asked after idle gaps, eventsvc against PostgreSQL, on what compare.py loaded.

compare.py asks each question of both servers in turn, so each server's answer follows the other
server's (or its own) by a few milliseconds in which it did nothing. This measures what such a gap
costs each of them on this machine: the same lookup of one event by its id, asked 300 times after
gaps of 0, 1, 5 and 20 ms (each side alone, the other idle):

  eventsvc    POST /v1/query {"source": "current", "where": {"id": ...}, "fields": ["id"]}
  PostgreSQL  SELECT id FROM current_events WHERE id = $1 (its primary key)

Both through the clients compare.py uses (libcurl over TLS; psycopg2 over TLS). Printed: each
side's p50 / p99 at the client and, for eventsvc, the median of the server's own elapsed_ms. Where
both grow alike with the gap, the growth is the machine's (an idle CPU's caches and wake-up), not
either server's; compare.py's sub-millisecond answers carry it.
"""
import argparse
import os
import sys
import time

import psycopg2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Eventsvc, fmt_ms, percentiles  # noqa: E402

GAPS_MS = (0, 1, 5, 20)
RUNS = 300
WARM = 30  # answers before each gap's timed ones, not counted


def timed(ask, gap_s):
    for _ in range(WARM):
        ask()
    timings = []
    for _ in range(RUNS):
        if gap_s:
            time.sleep(gap_s)
        started = time.perf_counter()
        ask()
        timings.append(time.perf_counter() - started)
    return timings


def main():
    parser = argparse.ArgumentParser()
    for name in ("eventsvc", "key", "pg"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    svc = Eventsvc(args.eventsvc, args.key)
    pg = psycopg2.connect(args.pg)
    pg.autocommit = True
    cursor = pg.cursor()
    # An event both servers were given (eventsvc also holds events the bench wrote to it alone).
    cursor.execute("SELECT id FROM current_events ORDER BY id "
                   "OFFSET (SELECT count(*) / 2 FROM current_events) LIMIT 1")
    event_id = cursor.fetchone()[0]
    body = {"source": "current", "where": {"id": event_id}, "fields": ["id"], "limit": 10}
    server = []  # eventsvc's own elapsed_ms of each answer at the gap being measured

    def svc_ask():
        answer = svc.post("/v1/query", body)
        if [r["id"] for r in answer["results"]] != [event_id]:
            raise SystemExit("eventsvc answered %r for id %s" % (answer["results"], event_id))
        server.append(svc.last_elapsed())

    def pg_ask():
        cursor.execute("SELECT id FROM current_events WHERE id = %s", (event_id,))
        if cursor.fetchall() != [(event_id,)]:
            raise SystemExit("PostgreSQL did not find id %s" % event_id)

    print("| one event by its id, after an idle gap | PostgreSQL 15, p50 / p99 | eventsvc, p50 / p99 "
          "| eventsvc in the server, p50 |")
    print("|---|---|---|---|")
    for gap in GAPS_MS:
        pg_p = percentiles(timed(pg_ask, gap / 1000))
        server.clear()
        svc_p = percentiles(timed(svc_ask, gap / 1000))
        server_p50 = percentiles(server[WARM:])[0]
        print("| %d ms | %s / %s | %s / %s | %s |" % (gap, fmt_ms(pg_p[0]), fmt_ms(pg_p[1]),
                                                      fmt_ms(svc_p[0]), fmt_ms(svc_p[1]),
                                                      fmt_ms(server_p50)))
        sys.stdout.flush()
    pg.close()


if __name__ == "__main__":
    main()
