"""What every generated data set of the benchmark shares: the write size, time units, and the
RFC 3339 timestamps the events carry."""

import time

BATCH = 100
MINUTE = 60_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR


class GeneratedEvents:
    """N events spread evenly over the 6.5 days before `end_ms`, in batches of BATCH; `seed` makes
    them (batch i is a pure function of the seed and i)."""

    def __init__(self, events, end_ms, seed):
        self.events = events
        self.batches = (events + BATCH - 1) // BATCH
        self.end = end_ms
        self.start = end_ms - int(6.5 * DAY)
        self.step = (self.end - self.start) // events
        self.seed = seed


def count_history(per_stream, buckets, stream, at, event, day_from):
    """Adds an event to what every shape's grouped-history and 24 h-bucket questions must answer:
    per stream (count, sum of metrics.latency_ms), and events per 5-minute bucket of the day."""
    count, total = per_stream.get(stream, (0, 0))
    per_stream[stream] = (count + 1, total + event["metrics"]["latency_ms"])
    if at >= day_from:
        bucket = at // 300_000 * 300_000
        buckets[bucket] = buckets.get(bucket, 0) + 1


def iso(ms):
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%03dZ" % millis
