#!/usr/bin/python3
"""Xapian, the specialist for the search questions of bench/compare.py: two common words, both
required, in the last 24 h, best 25 by BM25; and a rare word, every match in the last 24 h.

  /usr/bin/python3 bench/anchors/xapian_anchor.py --events FILE.jsonl --db DIR
      --day-from MS --to MS --words W1 W2 --rare WORD [--runs 100]

Indexes the free text of the JSON-lines events that have a `message` (one document per event, its
id as the document's data, its time in a value slot) into an on-disk database, asks each question
--runs times and prints one JSON line: per question p50, p99 and the first run in ms and the first
run's answer. What is timed is the query inside this process (set the query, match, read the ids).
"""

import argparse
import json
import time

import xapian

TIME_SLOT = 0


def index(events_path, db_path):
    """(messages indexed, seconds taken)."""
    started = time.perf_counter()
    db = xapian.WritableDatabase(db_path, xapian.DB_CREATE_OR_OVERWRITE)
    generator = xapian.TermGenerator()
    # No stemmer: a word matches exactly as the generator wrote it, as in eventsvc and in
    # PostgreSQL's 'simple' configuration.
    generator.set_stemming_strategy(xapian.TermGenerator.STEM_NONE)
    messages = 0
    with open(events_path, encoding="utf-8") as f:
        for line in f:
            event = json.loads(line)
            if "message" not in event:
                continue
            document = xapian.Document()
            generator.set_document(document)
            generator.index_text(event["message"])
            document.set_data(event["id"])
            document.add_value(TIME_SLOT, xapian.sortable_serialise(event["at_ms"]))
            db.add_document(document)
            messages += 1
    db.commit()
    db.close()
    return messages, time.perf_counter() - started


def ask(enquire, query, limit, runs):
    """p50, p99, first run (ms) and the first run's ids of `query`, asked `runs` times."""
    timings, answer = [], None
    for run in range(runs):
        started = time.perf_counter()
        enquire.set_query(query)
        ids = [match.document.get_data().decode() for match in enquire.get_mset(0, limit)]
        timings.append((time.perf_counter() - started) * 1000)
        if run == 0:
            answer = ids
    # The same figures as compare.py's: the middle run, the run at 99% and the first run.
    first = timings[0]
    timings.sort()
    return {"p50_ms": timings[len(timings) // 2], "first_ms": first,
            "p99_ms": timings[min(len(timings) - 1, int(len(timings) * 0.99))],
            "runs": runs, "answer": answer}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--day-from", type=int, required=True)
    parser.add_argument("--to", type=int, required=True)
    parser.add_argument("--words", nargs=2, required=True)
    parser.add_argument("--rare", required=True)
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()

    messages, seconds = index(args.events, args.db)
    db = xapian.Database(args.db)
    enquire = xapian.Enquire(db)  # BM25Weight, Xapian's default
    day = xapian.Query(xapian.Query.OP_VALUE_RANGE, TIME_SLOT,
                       xapian.sortable_serialise(args.day_from),
                       xapian.sortable_serialise(args.to))

    def in_day(query):
        # OP_FILTER: the time range restricts the matches without adding to their weight.
        return xapian.Query(xapian.Query.OP_FILTER, query, day)

    two_words = ask(enquire, in_day(xapian.Query(xapian.Query.OP_AND, args.words)), 25, args.runs)
    # Every match: as many as there are documents.
    rare_word = ask(enquire, in_day(xapian.Query(args.rare)), db.get_doccount(), args.runs)
    print(json.dumps({"engine": "Xapian", "version": xapian.version_string(), "load_s": seconds,
                      "messages": messages, "two_words": two_words, "rare_word": rare_word}))


if __name__ == "__main__":
    main()
