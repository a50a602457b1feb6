"""What every generated data set of the benchmark shares: the write size, time units, and the
RFC 3339 timestamps the events carry."""

import time

BATCH = 100
MINUTE = 60_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR


def iso(ms):
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%03dZ" % millis
