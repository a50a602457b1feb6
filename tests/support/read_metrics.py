"""Reads a metrics page (Prometheus text format) with the Prometheus project's own Python parser
and prints every sample on a line: name, its labels (name=value, sorted, comma-separated) and its
value, separated by tabs. Exits 1 with a line on stderr when the parser rejects the page or the
page breaks a rule of the format that the parser lets pass: a family without help text, a counter
whose samples do not end in _total, a histogram whose buckets are not cumulative or whose +Inf
bucket is not its count."""
import sys

from prometheus_client.parser import text_string_to_metric_families


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def check_histogram(family):
    series = {}
    for sample in family.samples:
        key = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "le"))
        entry = series.setdefault(key, {"buckets": [], "count": None})
        if sample.name.endswith("_bucket"):
            entry["buckets"].append((float(sample.labels["le"]), sample.value))
        elif sample.name.endswith("_count"):
            entry["count"] = sample.value
    for key, entry in series.items():
        buckets = sorted(entry["buckets"])
        counts = [count for _, count in buckets]
        if counts != sorted(counts):
            fail(f"{family.name}{dict(key)}: buckets are not cumulative")
        if not buckets or buckets[-1][0] != float("inf") or buckets[-1][1] != entry["count"]:
            fail(f"{family.name}{dict(key)}: the +Inf bucket is not the count")


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as error:  # the parser's own message says what is wrong
        fail(f"not a valid metrics page: {error}")
    for family in families:
        if not family.documentation:
            fail(f"{family.name}: no help text")
        if family.type == "counter":
            for sample in family.samples:
                if not sample.name.endswith("_total"):
                    fail(f"{sample.name}: a counter's samples must end in _total")
        if family.type == "histogram":
            check_histogram(family)
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            print(f"{sample.name}\t{labels}\t{sample.value!r}")


main()
