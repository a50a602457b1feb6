#!/usr/bin/env python3
"""Retention freeing disk: eventsvc against PostgreSQL, on what bench/compare.py loaded.

bench/run.sh has restarted eventsvc with its plan's retention_days shortened to --days, so that the
oldest part of the loaded data (spread over the 6.5 days before the run) is past it:

  eventsvc    `eventsvc retention --json`: the sweep counts what no plan keeps and erases it; then
              GET /v1/erasures/{id} every 5 ms until each is `hidden`, then until each is `purged`
              (its chunks dropped or rebuilt, the database compacted).
  PostgreSQL  DELETE FROM events and current_events WHERE occurred_at < the same instant in one
              transaction (the occurred_at index finds the rows), then VACUUM of both tables.

Reported: versions removed, time to hidden and to purged, disk before and after. Checked: the same
number of versions went on both, and a dry run afterwards finds exactly the versions that expired
since the sweep began (as PostgreSQL counts them).
"""
import argparse
import json
import subprocess
import sys
import os
import time

import psycopg2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Eventsvc, disk_bytes, pg_delete_and_vacuum  # noqa: E402


def sweep(args, *extra):
    command = [args.eventsvc_bin, "retention", "--json", "--config", args.config,
               "--data-dir", args.eventsvc_data, *extra]
    return json.loads(subprocess.check_output(command))


def main():
    parser = argparse.ArgumentParser()
    for name in ("eventsvc", "eventsvc-bin", "config", "key", "eventsvc-data", "pg", "pg-data"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--events", type=int, required=True)
    parser.add_argument("--days", type=int, required=True)
    args = parser.parse_args()
    svc = Eventsvc(args.eventsvc, args.key)

    svc_disk_before = disk_bytes(args.eventsvc_data)
    started = time.monotonic()
    swept = sweep(args)
    made = time.monotonic() - started
    erasures = [rule["erasure_id"] for rule in swept["rules"] if "erasure_id" in rule]
    cutoff = next(rule["before"] for rule in swept["rules"] if rule["stream"] is None)
    if not erasures:
        raise SystemExit("the sweep removed nothing: %s" % swept)

    def states():
        return [svc.get("/v1/erasures/" + erasure_id)[1] for erasure_id in erasures]

    while any(state["status"] == "accepted" for state in states()):
        time.sleep(0.005)
    hidden = time.monotonic() - started
    while True:
        current = states()
        if all(state["status"] == "purged" for state in current):
            break
        failed = [state for state in current if state["status"] == "failed"]
        if failed:
            raise SystemExit("a retention erasure failed: %s" % failed)
        time.sleep(0.05)
    purged = time.monotonic() - started
    removed = sum(state["erased_versions"] for state in states())
    svc_disk_after = disk_bytes(args.eventsvc_data)
    # What expired since the sweep began (the data is dense near its start): checked below.
    dry = sweep(args, "--dry-run")
    dry_cutoff = next(rule["before"] for rule in dry["rules"] if rule["stream"] is None)

    pg = psycopg2.connect(args.pg)
    pg_disk_before = disk_bytes(args.pg_data)
    pg_removed, pg_hidden, pg_vacuum = pg_delete_and_vacuum(
        pg, "occurred_at < %s::timestamptz", (cutoff,))
    with pg.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM events WHERE occurred_at < %s::timestamptz",
                       (dry_cutoff,))
        expired_since = cursor.fetchone()[0]
    pg_disk_after = disk_bytes(args.pg_data)
    if pg_removed != removed:
        raise SystemExit("PostgreSQL deleted %d versions, eventsvc removed %d" % (pg_removed,
                                                                                  removed))
    if dry["versions"] != expired_since:
        raise SystemExit("a dry run after the sweep finds %d versions, PostgreSQL %d expired since"
                         % (dry["versions"], expired_since))

    mib = 2 ** 20
    print()
    print("| retention of %d days: the versions before %s, %s (%.1f%% of the events) | PostgreSQL "
          "15 | eventsvc | ratio |" % (args.days, cutoff, "{:,}".format(removed),
                                       100 * removed / args.events))
    print("|---|---|---|---|")
    print("| hidden (DELETE committed / the sweep's erasures `hidden`; the sweep answered after "
          "%.2f s) | %.2f s | %.2f s | %.2f× |" % (made, pg_hidden, hidden, hidden / pg_hidden))
    print("| purged (VACUUM done / erasures `purged`) | %.2f s after the DELETE | %.2f s after the "
          "sweep began | |" % (pg_vacuum, purged))
    print("| disk before → after | %.0f → %.0f MiB | %.0f → %.0f MiB | |" % (
        pg_disk_before / mib, pg_disk_after / mib, svc_disk_before / mib, svc_disk_after / mib))


if __name__ == "__main__":
    main()
