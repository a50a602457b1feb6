#!/usr/bin/env python3
"""The first answers after a restart, eventsvc against PostgreSQL, on what compare.py loaded.

compare.py asks its questions of servers that have just written every event (PostgreSQL's shared
buffers and eventsvc's caches hold what the load left there). A server that was restarted, for an
upgrade or after a crash, starts with empty caches of its own while the operating system's page
cache still holds the files. This asks compare.py's questions (its --questions-out file) in two
phases that bench/run.sh puts around a restart of both servers:

  bench/restart.py --phase before ...   each question once of each server, answers kept
  (both servers restarted)
  bench/restart.py --phase after ...    each question: its first answer, then RUNS more

and prints, per question, each server's first answer and the median of the ones after it, at the
client, and eventsvc's first answer in the server (its elapsed_ms). Each first answer after the
restart is checked: the ids of a question compare.py checks by ids against the generator's
expectation it wrote beside the question (a ranked top 25 may break ties another way after a
restart), an aggregation against the answer the same server gave before the restart.
"""
import argparse
import json
import os
import sys
import time

import psycopg2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import Eventsvc, fmt_ms, percentiles  # noqa: E402

RUNS = 20


def expectation_met(expect, ids):
    """Whether `ids` are the expected ids: all of them, or `top` of them."""
    expected = set(expect["ids"])
    if expect["top"]:
        return len(ids) == min(expect["top"], len(expected)) and set(ids) <= expected
    return set(ids) == expected


def right_answer(question, side, answer, before):
    expect = question.get("expect")
    if expect:
        return expectation_met(expect, [a if side == "svc" else a[0] for a in answer])
    return answer == before[question["name"]][side]


def comparable(path, answer):
    """What of eventsvc's answer must not change with a restart: its results' ids or its groups."""
    if path == "/v1/analyze":
        return answer.get("groups")
    return [record["id"] for record in answer["results"]]


def main():
    parser = argparse.ArgumentParser()
    for name in ("eventsvc", "key", "pg", "questions", "answers"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--phase", choices=("before", "after"), required=True)
    args = parser.parse_args()
    with open(args.questions) as source:
        questions = json.load(source)
    svc = Eventsvc(args.eventsvc, args.key)
    pg = psycopg2.connect(args.pg)
    pg.autocommit = True
    cursor = pg.cursor()

    def ask_svc(question):
        asked = question["eventsvc"]
        return comparable(asked["path"], svc.post(asked["path"], asked["body"]))

    def ask_pg(question):
        asked = question["postgres"]
        cursor.execute(asked["sql"], asked["params"])
        return json.loads(json.dumps(cursor.fetchall(), default=str))

    if args.phase == "before":
        answers = {q["name"]: {"svc": ask_svc(q), "pg": ask_pg(q)} for q in questions}
        with open(args.answers, "w") as out:
            json.dump(answers, out)
        return

    with open(args.answers) as source:
        before = json.load(source)
    print("| first answers after a restart of both servers (first / median of the next %d) | "
          "PostgreSQL 15 | eventsvc | eventsvc in the server (first) |" % RUNS)
    print("|---|---|---|---|")
    for question in questions:
        row = []
        for side, ask in (("pg", ask_pg), ("svc", ask_svc)):
            timings = []
            for run in range(RUNS + 1):
                started = time.perf_counter()
                answer = ask(question)
                timings.append(time.perf_counter() - started)
                if run == 0 and not right_answer(question, side, answer, before):
                    raise SystemExit("%s answered '%s' wrongly after the restart" % (
                        side, question["name"]))
                if run == 0 and side == "svc":
                    server_first = svc.last_elapsed()
            row.append("%s / %s" % (fmt_ms(timings[0]), fmt_ms(percentiles(timings[1:])[0])))
        print("| %s | %s | %s | %s |" % (question["name"], row[0], row[1], fmt_ms(server_first)))
    print("every first answer after the restart was checked: ids against the generator, "
          "aggregations against the answer before the restart")


if __name__ == "__main__":
    main()
