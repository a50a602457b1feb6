#!/usr/bin/env python3
"""A normal client beside hostile ones: eventsvc and PostgreSQL, the same attack on each.

For each server in turn, 500 hostile connections are opened from 10 source addresses
(127.0.0.2-11) and held: a third open TCP and send nothing, a third start a session (TLS for
eventsvc, a startup packet for PostgreSQL) and then dribble it a byte a second, a third complete a
session and sit idle. Meanwhile a normal client (127.0.0.1) makes REQUESTS requests, each on a new
connection (connect, TLS, authenticate, one trivial authenticated request: GET of an unknown
receipt for eventsvc, SELECT 1 for PostgreSQL), and the same before the attack as the baseline.
Reported: p50, p99 and max of the normal client's requests, how many failed, and how many hostile
connections the server still held at the end.
"""
import argparse
import http.client
import select
import socket
import ssl
import struct
import threading
import time
from urllib.parse import urlparse

import psycopg2

HOSTILE = 500
ADDRESSES = 10
REQUESTS = 300


def tls_context():
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def percentile(ordered, fraction):
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


class Eventsvc:
    name = "eventsvc"

    def __init__(self, url, key):
        parsed = urlparse(url)
        self.host, self.port, self.key = parsed.hostname, parsed.port, key
        self.context = tls_context()

    def request(self):
        connection = http.client.HTTPSConnection(self.host, self.port, context=self.context,
                                                 timeout=30)
        try:
            connection.request("GET", "/v1/receipts/req_0000000000000000",
                               headers={"Authorization": "Bearer " + self.key})
            response = connection.getresponse()
            response.read()
            return response.status == 404
        finally:
            connection.close()

    def hostile(self, source, kind):
        raw = socket.create_connection((self.host, self.port), timeout=30,
                                       source_address=(source, 0))
        if kind == 0:
            return raw, None
        wrapped = self.context.wrap_socket(raw)
        if kind == 1:
            wrapped.sendall(b"GET /v1/receipts/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            return wrapped, b"x"
        wrapped.sendall(b"GET /v1/receipts/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        wrapped.recv(65536)
        return wrapped, None


class Postgres:
    name = "PostgreSQL"

    def __init__(self, dsn):
        self.dsn = dsn
        fields = dict(part.split("=", 1) for part in dsn.split())
        self.host, self.port = fields["host"], int(fields["port"])

    def request(self):
        connection = psycopg2.connect(self.dsn, connect_timeout=30)
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                return cursor.fetchone() == (1,)
        finally:
            connection.close()

    def hostile(self, source, kind):
        if kind == 2:
            # An authenticated session, idle: what a pool left open looks like.
            return psycopg2.connect(self.dsn + " hostaddr=" + self.host, connect_timeout=30), None
        raw = socket.create_connection((self.host, self.port), timeout=30,
                                       source_address=(source, 0))
        if kind == 0:
            return raw, None
        # The length of a startup packet, then its bytes one at a time.
        raw.sendall(struct.pack("!I", 512))
        return raw, b"\x00"


def measure(server, count):
    latencies, failures = [], 0
    for _ in range(count):
        started = time.monotonic()
        try:
            ok = server.request()
        except Exception:  # refused, reset or timed out: the client was not served
            ok = False
        latencies.append(time.monotonic() - started)
        failures += 0 if ok else 1
    latencies.sort()
    return latencies, failures


def attack(server):
    held, dribbled, refused = [], [], [0]
    lock = threading.Lock()

    def opener(address):
        source = "127.0.0.%d" % (2 + address)
        for i in range(HOSTILE // ADDRESSES):
            try:
                connection, drip = server.hostile(source, i % 3)
            except Exception:
                with lock:
                    refused[0] += 1
                continue
            with lock:
                held.append(connection)
                if drip:
                    dribbled.append((connection, drip))

    openers = [threading.Thread(target=opener, args=(a,)) for a in range(ADDRESSES)]
    for thread in openers:
        thread.start()
    for thread in openers:
        thread.join()
    stop = threading.Event()

    def dribbler():
        while not stop.wait(1.0):
            for connection, drip in dribbled:
                try:
                    connection.send(drip)
                except Exception:
                    pass

    thread = threading.Thread(target=dribbler)
    thread.start()
    return held, refused[0], stop, thread


def still_open(connection):
    # The end of the stream or a reset, without reading (TLS records may be waiting unread).
    try:
        watcher = select.poll()
        watcher.register(connection.fileno(), select.POLLRDHUP)
        events = watcher.poll(0)
    except Exception:
        return False
    return not any(flags & (select.POLLRDHUP | select.POLLHUP | select.POLLERR)
                   for _, flags in events)


def fmt(seconds):
    return "%.1f ms" % (seconds * 1000) if seconds < 10 else "%.1f s" % seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--eventsvc", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--pg", required=True)
    parser.add_argument("--requests", type=int, default=REQUESTS)
    args = parser.parse_args()

    rows = []
    for server in (Postgres(args.pg), Eventsvc(args.eventsvc, args.key)):
        base, base_failures = measure(server, args.requests)
        held, refused, stop, dribbler = attack(server)
        under, failures = measure(server, args.requests)
        open_after = sum(1 for connection in held if still_open(connection))
        stop.set()
        dribbler.join()
        for connection in held:
            try:
                connection.close()
            except Exception:
                pass
        rows.append((server.name, base, base_failures, under, failures, len(held), refused,
                     open_after))
        time.sleep(2)

    print("normal client, %d requests each on a new connection, beside %d hostile connections "
          "from %d addresses" % (args.requests, HOSTILE, ADDRESSES))
    print("| server | alone p50 / p99 | under attack p50 / p99 / max | failed | hostile held "
          "(refused at open) |")
    print("|---|---|---|---|---|")
    for name, base, base_failures, under, failures, held, refused, open_after in rows:
        print("| %s | %s / %s | %s / %s / %s | %d of %d | %d of %d (%d) |" % (
            name, fmt(percentile(base, 0.5)), fmt(percentile(base, 0.99)),
            fmt(percentile(under, 0.5)), fmt(percentile(under, 0.99)), fmt(under[-1]),
            failures + base_failures, 2 * args.requests, open_after, HOSTILE, refused))


main()
