#!/usr/bin/env python3
"""Erasing one person's events: eventsvc against PostgreSQL, on what bench/compare.py loaded.

The condition is the nested payload value whose events come nearest 0.1% of the data (on the
production shape a customer's or a user's events, found by counting the generated events), the
same on both servers:

  eventsvc    POST /v1/erasures {"where": {"payload.<path>": value}} (every version, no time
              bound); then GET /v1/erasures/{id} every 5 ms until `hidden`, then until `purged`.
              Meanwhile a probe query runs back to back: its p99 against the same probe before.
  PostgreSQL  DELETE FROM events and current_events WHERE doc @> {...} in one transaction (the
              jsonb_path_ops GIN index finds the rows), then VACUUM of both tables.

Reported: time to hidden (the DELETE's commit), time to purged (VACUUM done), disk before and after,
and the probe's p99 without and during the purge. Every answer is checked: the condition matches
nothing on either server afterwards, and the same number of versions went on both.
"""
import argparse
import collections
import json
import os
import sys
import time

import psycopg2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import (SHAPES, Eventsvc, MINUTE, disk_bytes, fmt_ms, percentiles,  # noqa: E402
                     pg_delete_and_vacuum)

PROBES = 200


def nested_values(value, path, out):
    """Every string leaf below the top level of the payload, as (dotted path, value)."""
    if isinstance(value, dict):
        for key, child in value.items():
            nested_values(child, path + [key], out)
    elif isinstance(value, str) and len(path) >= 2:
        out.append((".".join(path), value))


def target(data, events):
    """The (path, value) whose events come nearest events / 1000, and how many there are."""
    counts = collections.Counter()
    for _, batch in data.prepared:
        for _, event in batch:
            leaves = []
            nested_values(event.get("data"), [], leaves)
            counts.update(set(leaves))
    wanted = events / 1000
    (path, value), count = min(counts.items(), key=lambda item: (abs(item[1] - wanted), item[0]))
    return path, value, count


def containing(path, value):
    """The jsonb document that doc @> matches: {"data": {...path...: value}}."""
    inner = value
    for key in reversed(path.split(".")):
        inner = {key: inner}
    return json.dumps({"data": inner})


def probe_timings(svc, probe, runs=None, until=None):
    """`runs` probes, or probes until `until()` says stop (asked after each)."""
    timings = []
    while True:
        started = time.monotonic()
        svc.post("/v1/query", probe)
        timings.append(time.monotonic() - started)
        if (runs is not None and len(timings) >= runs) or (until is not None and until()):
            return timings


def main():
    parser = argparse.ArgumentParser()
    for name in ("eventsvc", "key", "eventsvc-data", "pg", "pg-data", "shape"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--events", type=int, required=True)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    end = int(time.time() * 1000) // MINUTE * MINUTE - MINUTE
    data = SHAPES[args.shape][0](args.events, end, seed=args.seed)
    path, value, count = target(data, args.events)
    field = "payload." + path
    svc = Eventsvc(args.eventsvc, args.key)
    pg = psycopg2.connect(args.pg)

    # eventsvc: a probe of the same shape on another value, before and during the purge.
    probe = {"source": "history", "where": {field: "none-such-value",
                                            "timestamp": {"gte": "now-30d"}}, "limit": 25}
    baseline = probe_timings(svc, probe, runs=PROBES)
    svc_disk_before = disk_bytes(args.eventsvc_data)
    started = time.monotonic()
    receipt = svc.post("/v1/erasures", {"where": {field: value}},
                       {"Idempotency-Key": "bench-erasure-%s" % value})
    accepted = time.monotonic() - started
    status_path = "/v1/erasures/" + receipt["erasure_id"]

    def state():
        return svc.get(status_path)[1]

    while (erasure := state())["status"] == "accepted":
        time.sleep(0.005)
    hidden = time.monotonic() - started
    if erasure["status"] != "hidden" and erasure["status"] != "purged":
        raise SystemExit("the erasure %s: %s" % (erasure["status"], erasure))
    left = svc.post("/v1/query", {"source": "history", "where": {field: value,
                                  "timestamp": {"gte": "now-30d"}}, "limit": 1})
    if left["count"] != 0:
        raise SystemExit("eventsvc still answers %d versions of %s" % (left["count"], value))
    during = probe_timings(svc, probe, until=lambda: state()["status"] == "purged")
    purged = time.monotonic() - started
    erased = erasure["erased_versions"]
    svc_disk_after = disk_bytes(args.eventsvc_data)

    # PostgreSQL: the same condition.
    pg_disk_before = disk_bytes(args.pg_data)
    contained = containing(path, value)
    pg_erased, pg_hidden, pg_vacuum = pg_delete_and_vacuum(pg, "doc @> %s::jsonb", (contained,))
    with pg.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM events WHERE doc @> %s::jsonb", (contained,))
        if cursor.fetchone()[0] != 0:
            raise SystemExit("PostgreSQL still holds versions of %s" % value)
    pg_disk_after = disk_bytes(args.pg_data)
    if pg_erased != erased:
        raise SystemExit("PostgreSQL deleted %d versions, eventsvc erased %d" % (pg_erased, erased))

    mib = 2 ** 20
    print()
    print("| erase `%s = %s`: %s versions (%.2f%% of the events), every version | PostgreSQL 15 "
          "| eventsvc | ratio |" % (field, value, "{:,}".format(erased), 100 * erased / args.events))
    print("|---|---|---|---|")
    print("| hidden: no read returns them (DELETE committed / erasure `hidden`, its 202 after "
          "%.3f s) | %.3f s | %.3f s | %.2f× |" % (accepted, pg_hidden, hidden, hidden / pg_hidden))
    print("| purged (VACUUM done / erasure `purged`: chunks rebuilt, files rewritten) | %.2f s "
          "after the DELETE | %.2f s after the 202 | |" % (pg_vacuum, purged))
    print("| disk before → after | %.0f → %.0f MiB | %.0f → %.0f MiB | |" % (
        pg_disk_before / mib, pg_disk_after / mib, svc_disk_before / mib, svc_disk_after / mib))
    base_p50, base_p99 = percentiles(baseline)
    purge_p50, purge_p99 = percentiles(during)
    print("| eventsvc query p50 / p99 without the purge, during it (%d queries) | | %s / %s, "
          "%s / %s | %.2f× the p99 |" % (len(during), fmt_ms(base_p50), fmt_ms(base_p99),
                                         fmt_ms(purge_p50), fmt_ms(purge_p99),
                                         purge_p99 / base_p99))
    print("the condition matched %d generated events; both servers erased %d versions and answer "
          "none of them" % (count, erased))


if __name__ == "__main__":
    main()
