"""The production-like shape of the benchmark's events, and what its questions must answer.

Five streams shaped like what a service is fed in production rather than like a benchmark:
nested objects and arrays with about 23 scalar leaves per event, UTF-8 text, high-cardinality
values (order and customer ids, SKUs, IPs), unique ids, and free text drawn with Zipf-like
frequencies from a real dictionary, so the word indexes hold tens of thousands of words, not 24.
Everything is a pure function of (seed, batch index), as in the classic shape (compare.py).
"""

import collections
import ipaddress
import itertools
import random
import re

from generation import BATCH, DAY, HOUR, MINUTE, GeneratedEvents, count_history, iso

DICT_WORDS = "/usr/share/dict/words"  # Debian's wamerican
ZIPF_S = 1.1
DEVICES = 5000
MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1
GOLDEN32 = 0x9E3779B9
GOLDEN64 = 0x9E3779B97F4A7C15
HEX_LETTERS = frozenset("abcdef")
# 20 batches: sensors 30%, http 25%, orders 20%, auth 15%, app_errors 10%, interleaved.
PRODUCTION_PATTERN = ("sensors", "http", "orders", "auth", "sensors", "http", "sensors", "orders",
                      "app_errors", "http", "sensors", "auth", "orders", "http", "sensors",
                      "app_errors", "orders", "sensors", "http", "auth")
TEXT_STREAMS = ("auth", "app_errors")  # the streams with free text, in data.message

# country code: (currency, postcode pattern: # a digit, @ a capital letter)
COUNTRIES = {
    "CH": ("CHF", "####"), "BR": ("BRL", "#####-###"), "PL": ("PLN", "##-###"),
    "SE": ("SEK", "### ##"), "JP": ("JPY", "###-####"), "DE": ("EUR", "#####"),
    "CA": ("CAD", "@#@ #@#"), "IS": ("ISK", "###"), "TR": ("TRY", "#####"),
    "MX": ("MXN", "#####"), "FR": ("EUR", "#####"), "US": ("USD", "#####"),
    "GB": ("GBP", "@@# #@@"), "IN": ("INR", "######"), "AU": ("AUD", "####"),
}
COUNTRY_CODES = tuple(COUNTRIES)
# (city, country, lat, lon, airport code); the first 12 have sensor sites, named after the code.
CITIES = (
    ("Zürich", "CH", 47.3769, 8.5417, "zrh"), ("São Paulo", "BR", -23.5505, -46.6333, "gru"),
    ("Kraków", "PL", 50.0647, 19.9450, "krk"), ("Malmö", "SE", 55.6050, 13.0038, "mmx"),
    ("東京", "JP", 35.6762, 139.6503, "hnd"), ("München", "DE", 48.1351, 11.5820, "muc"),
    ("Düsseldorf", "DE", 51.2277, 6.7735, "dus"), ("Łódź", "PL", 51.7592, 19.4560, "lcj"),
    ("Göteborg", "SE", 57.7089, 11.9746, "got"), ("Montréal", "CA", 45.5019, -73.5674, "yul"),
    ("Reykjavík", "IS", 64.1466, -21.9426, "kef"), ("İstanbul", "TR", 41.0082, 28.9784, "ist"),
    ("Ciudad de México", "MX", 19.4326, -99.1332, "mex"),
    ("Besançon", "FR", 47.2378, 6.0241, "qbq"),
    ("New York", "US", 40.7128, -74.0060, "jfk"), ("Chicago", "US", 41.8781, -87.6298, "ord"),
    ("London", "GB", 51.5074, -0.1278, "lhr"), ("Paris", "FR", 48.8566, 2.3522, "cdg"),
    ("大阪", "JP", 34.6937, 135.5023, "kix"), ("Mumbai", "IN", 19.0760, 72.8777, "bom"),
    ("Sydney", "AU", -33.8688, 151.2093, "syd"), ("Porto Alegre", "BR", -30.0346, -51.2177, "poa"),
)
CITIES_BY_COUNTRY = {code: tuple(c[0] for c in CITIES if c[1] == code) for code in COUNTRY_CODES}
SENSOR_SITES = tuple(("%s-%d" % (city[4], n), index)
                     for index, city in enumerate(CITIES[:12]) for n in (1, 2))
QUESTION_SITE = "krk-1"  # the site of the current-state question on sensors
# (model, has a pressure sensor, has air-quality sensors): readings differ in their fields.
MODELS = (("TX-100", False, False), ("TX-200", True, False), ("AQ-7", False, True),
          ("EnviroSense Pro", True, True))
SENSOR_UNITS = {"temp": "C", "humidity": "%", "pressure": "hPa"}

# Order lifecycles: each order has four versions; these are their statuses, by weight.
ORDER_FATES = (("created", "paid", "shipped", "delivered"),
               ("created", "payment_failed", "paid", "shipped"),
               ("created", "paid", "cancelled", "refunded"))
ORDER_FATE_WEIGHTS = (88, 7, 5)
STAGE_DELAYS = (0, 20 * MINUTE, 18 * HOUR, 3 * DAY)  # after the order is created
PAYMENT_METHODS = ("card", "card", "card", "paypal", "klarna", "apple_pay", "bank_transfer")
PAYMENT_PROVIDERS = ("stripe", "adyen", "braintree")
SHIPPING_METHODS = ("standard", "standard", "express", "pickup_point")
CHANNELS = ("web", "web", "ios", "android", "pos")

# (type, outcome) of auth events, by weight.
AUTH_KINDS = (("login", "success"), ("login_failed", "invalid_password"),
              ("login_failed", "locked"), ("mfa_challenge", "mfa_required"),
              ("token_refresh", "success"), ("logout", "success"))
AUTH_KIND_WEIGHTS = (55, 12, 2, 8, 15, 8)
AUTH_METHODS = ("password", "password", "sso", "passkey", "oauth", "api_key")
RISK_REASONS = ("new_device", "impossible_travel", "tor_exit_node", "unusual_hour",
                "many_failures", "new_country")
TENANTS = ("acme-eu", "acme-us", "globex", "initech", "umbrella-jp")
CLIENT_APPS = ("web", "ios", "android", "cli")

# User agents: a format and the ranges of its three version numbers; browsers weigh 5, the rest 1.
USER_AGENTS = (
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/{0}.0.{1}.{2} Safari/537.36", (109, 132), (5400, 6900), (0, 230), 5),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/{0}.0.{1}.{2} Safari/537.36", (109, 132), (5400, 6900), (0, 230), 5),
    ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/{0}.0.{1}.{2} Safari/537.36", (109, 132), (5400, 6900), (0, 230), 5),
    ("Mozilla/5.0 (Linux; Android {0}; Pixel {1}) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/{2}.0.0.0 Mobile Safari/537.36", (11, 16), (5, 10), (109, 132), 5),
    ("Mozilla/5.0 (Linux; Android {0}; SM-S9{1}1B) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/{2}.0.0.0 Mobile Safari/537.36", (12, 16), (0, 3), (109, 132), 5),
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:{0}.0) Gecko/20100101 Firefox/{0}.{1}",
     (115, 135), (0, 3), (0, 1), 5),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14.{1}; rv:{0}.0) Gecko/20100101 Firefox/{0}.0",
     (115, 135), (0, 8), (0, 1), 5),
    ("Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:{0}.0) Gecko/20100101 Firefox/{0}.0",
     (115, 135), (0, 1), (0, 1), 5),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "Version/{0}.{1} Safari/605.1.15", (15, 19), (0, 7), (0, 1), 5),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS {0}_{1} like Mac OS X) AppleWebKit/605.1.15 "
     "(KHTML, like Gecko) Version/{0}.{1} Mobile/15E148 Safari/604.1", (15, 19), (0, 7), (0, 1), 5),
    ("Mozilla/5.0 (iPad; CPU OS {0}_{1} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "Version/{0}.{1} Mobile/15E148 Safari/604.1", (15, 19), (0, 7), (0, 1), 5),
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/{0}.0.0.0 Safari/537.36 Edg/{0}.0.{1}.{2}", (109, 132), (1500, 2900), (0, 120), 5),
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/{0}.0.0.0 Safari/537.36 OPR/{1}.0.{2}.0", (109, 132), (95, 116), (4000, 5600), 2),
    ("Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) "
     "SamsungBrowser/{0}.0 Chrome/{1}.0.0.0 Mobile Safari/537.36", (20, 27), (108, 127), (0, 1), 2),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_{1} like Mac OS X) AppleWebKit/605.1.15 "
     "(KHTML, like Gecko) CriOS/{0}.0.{2}.0 Mobile/15E148 Safari/604.1", (109, 132), (0, 7),
     (5400, 6900), 2),
    ("Mozilla/5.0 (Android 14; Mobile; rv:{0}.0) Gecko/{0}.0 Firefox/{0}.0", (115, 135), (0, 1),
     (0, 1), 2),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Slack/{0}.{1}.{2} Chrome/120.0.6099.56 Electron/28.1.0 Safari/537.36", (4, 5), (33, 42),
     (0, 120), 1),
    ("ShopApp/{0}.{1}.{2} (iPhone; iOS 17.{1}; Scale/3.00)", (4, 8), (0, 10), (0, 20), 3),
    ("ShopApp/{0}.{1}.{2} (Linux; Android 14; Pixel 8)", (4, 8), (0, 10), (0, 20), 3),
    ("curl/{0}.{1}.{2}", (7, 9), (0, 12), (0, 2), 1),
    ("python-requests/2.{0}.{1}", (25, 33), (0, 4), (0, 1), 1),
    ("okhttp/4.{0}.{1}", (9, 13), (0, 4), (0, 1), 1),
    ("Go-http-client/{0}.{1}", (1, 3), (0, 2), (0, 1), 1),
    ("PostmanRuntime/7.{0}.{1}", (32, 43), (0, 6), (0, 1), 1),
    ("axios/1.{0}.{1}", (4, 8), (0, 9), (0, 1), 1),
    ("Java/{0}.0.{1}", (11, 22), (1, 12), (0, 1), 1),
    ("Wget/1.{0}.{1} (linux-gnu)", (20, 22), (0, 4), (0, 1), 1),
    ("Mozilla/5.0 (compatible; Googlebot/2.{0}; +http://www.google.com/bot.html)", (1, 2), (0, 1),
     (0, 1), 1),
    ("Mozilla/5.0 (compatible; bingbot/2.{0}; +http://www.bing.com/bingbot.htm)", (0, 1), (0, 1),
     (0, 1), 1),
    ("Mozilla/5.0 (compatible; YandexBot/3.{0}; +http://yandex.com/bots)", (0, 1), (0, 1),
     (0, 1), 1),
    ("facebookexternalhit/1.{0} (+http://www.facebook.com/externalhit_uatext.php)", (1, 2), (0, 1),
     (0, 1), 1),
)
USER_AGENT_WEIGHTS = tuple(ua[4] for ua in USER_AGENTS)

# HTTP routes: (method, path with {placeholders}, content type, weight).
HTTP_ROUTES = (
    ("GET", "/api/v1/orders/{order}", "application/json", 20),
    ("GET", "/api/v1/orders/{order}/items", "application/json", 6),
    ("POST", "/api/v1/orders", "application/json", 5),
    ("PATCH", "/api/v1/orders/{order}", "application/json", 2),
    ("GET", "/api/v1/customers/{customer}/orders", "application/json", 6),
    ("GET", "/api/v1/products/{sku}", "application/json", 14),
    ("GET", "/api/v1/search?q={category}&page={page}", "application/json", 8),
    ("POST", "/api/v1/payments/{payment}/capture", "application/json", 3),
    ("DELETE", "/api/v1/cart/items/{sku}", "application/json", 2),
    ("GET", "/static/js/app.{hex}.js", "application/javascript", 9),
    ("GET", "/static/css/main.{hex}.css", "text/css", 5),
    ("GET", "/checkout", "text/html; charset=utf-8", 4),
    ("GET", "/login", "text/html; charset=utf-8", 3),
    ("POST", "/graphql", "application/json", 5),
    ("GET", "/healthz", "text/plain", 8),
)
HTTP_ROUTE_WEIGHTS = tuple(route[3] for route in HTTP_ROUTES)
HTTP_STATUSES = (200, 201, 204, 301, 304, 400, 401, 403, 404, 409, 429, 500, 502, 503)
HTTP_STATUS_WEIGHTS = (780, 30, 20, 5, 40, 20, 15, 5, 40, 5, 10, 15, 5, 10)
HTTP_HOSTS = ("shop.example.com", "api.example.com", "m.example.com")
HTTP_PROTOCOLS = ("HTTP/1.1", "HTTP/2", "HTTP/2", "HTTP/3")
HTTP_SERVICES = ("storefront", "api-gateway", "checkout-api")
REGIONS = ("eu-central-1", "eu-west-1", "us-east-1", "ap-northeast-1", "sa-east-1")
CATEGORIES = ("shoes", "jackets", "headphones", "coffee", "backpacks", "laptops", "lamps")
REFERRERS = ("-", "-", "https://www.google.com/", "https://shop.example.com/",
             "https://shop.example.com/cart", "https://www.bing.com/", "https://t.co/",
             "android-app://com.google.android.gm/")
# IPv6 /32 prefixes of large access networks; about 1 in 5 addresses is IPv6.
IPV6_PREFIXES = (0x2A028108, 0x200116B8, 0x26001700, 0x280414C0, 0x24004050, 0x2A01CB00)

# Services that report errors: (name, language, stack frames (file, function), error types,
# request paths).
ERROR_SERVICES = (
    ("checkout", "python",
     (("app/checkout/views.py", "create_order"), ("app/checkout/service.py", "charge"),
      ("app/payments/client.py", "authorize"), ("lib/http/retry.py", "send_with_retry"),
      ("site-packages/requests/adapters.py", "send"),
      ("site-packages/urllib3/connectionpool.py", "urlopen")),
     ("TimeoutError", "ConnectionResetError", "KeyError", "ValueError", "PaymentDeclined"),
     ("/api/v1/orders", "/api/v1/payments/capture")),
    ("inventory", "java",
     (("com/shop/inventory/StockService.java", "reserve"),
      ("com/shop/inventory/StockRepository.java", "findBySku"),
      ("org/hibernate/internal/SessionImpl.java", "find"),
      ("com/zaxxer/hikari/pool/HikariPool.java", "getConnection"),
      ("java/util/concurrent/ThreadPoolExecutor.java", "runWorker")),
     ("NullPointerException", "IllegalStateException", "SQLTransientConnectionException",
      "OptimisticLockException"),
     ("/internal/stock/reserve", "/internal/stock/release")),
    ("search", "go",
     (("internal/search/handler.go", "ServeHTTP"), ("internal/search/index.go", "Query"),
      ("internal/shard/client.go", "Fetch"), ("net/http/server.go", "serve"),
      ("runtime/panic.go", "gopanic")),
     ("context.DeadlineExceeded", "shard.ErrUnavailable", "json.SyntaxError"),
     ("/api/v1/search",)),
    ("frontend", "node",
     (("src/server/render.tsx", "renderPage"), ("src/api/client.ts", "fetchJson"),
      ("node_modules/undici/lib/fetch/index.js", "fetch"),
      ("src/server/middleware/session.ts", "loadSession")),
     ("TypeError", "FetchError", "ECONNREFUSED", "UnhandledPromiseRejection"),
     ("/checkout", "/login", "/")),
)
ENVIRONMENTS = ("prod", "prod", "prod", "staging")
# Every table the generator draws strings from; words in them are never asked for in searches.
PRODUCTION_TABLES = (COUNTRIES, CITIES, SENSOR_SITES, MODELS, SENSOR_UNITS, ORDER_FATES,
                     PAYMENT_METHODS, PAYMENT_PROVIDERS, SHIPPING_METHODS, CHANNELS, AUTH_KINDS,
                     AUTH_METHODS, RISK_REASONS, TENANTS, CLIENT_APPS, USER_AGENTS, HTTP_ROUTES,
                     HTTP_HOSTS, HTTP_PROTOCOLS, HTTP_SERVICES, REGIONS, CATEGORIES, REFERRERS,
                     ERROR_SERVICES, ENVIRONMENTS, PRODUCTION_PATTERN)


def mix32(x):
    """murmur3's finalizer: a bijection of 32-bit integers, so distinct inputs give distinct,
    random-looking ids."""
    x &= MASK32
    x = ((x ^ (x >> 16)) * 0x85EBCA6B) & MASK32
    x = ((x ^ (x >> 13)) * 0xC2B2AE35) & MASK32
    return x ^ (x >> 16)


def mix64(x):
    """splitmix64's finalizer: a bijection of 64-bit integers (unique ids from event numbers)."""
    x &= MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def vocabulary(seed):
    """The dictionary's plain words (lowercase ASCII letters, 3-12 of them) in Zipf rank order:
    sorted, then shuffled with the seed, so that which words are common depends on the seed only."""
    try:
        with open(DICT_WORDS, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError as error:
        raise SystemExit("bench: the production shape draws its words from %s (%s); install it "
                         "with `apt-get install wamerican` (make bench does)" % (DICT_WORDS, error))
    words = sorted({w for w in lines if re.fullmatch(r"[a-z]{3,12}", w)})
    if len(words) < 10000:
        raise SystemExit("bench: %s holds only %d plain words" % (DICT_WORDS, len(words)))
    random.Random(seed).shuffle(words)
    return words


def text_words(text):
    """Lowercase runs of letters and digits: the words either server can index in a string."""
    return re.findall(r"[^\W_]+", text.lower())


def strings_in(value, skip_key=None):
    """Every key and string inside value (tables, events), except the values under skip_key."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            if key != skip_key:
                yield from strings_in(item, skip_key)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item, skip_key)


def postcode(rng, pattern):
    return "".join(str(rng.randrange(10)) if c == "#" else
                   chr(65 + rng.randrange(26)) if c == "@" else c for c in pattern)


def sku_price(sku):
    """A SKU's price, the same in every order: log-uniform between 2 and 500."""
    return round(2 * 250 ** (mix32(sku) / MASK32), 2)


def random_ip(rng):
    """A public-looking address; about 1 in 5 is IPv6."""
    if rng.random() < 0.2:
        prefix = IPV6_PREFIXES[rng.randrange(len(IPV6_PREFIXES))]
        return str(ipaddress.IPv6Address((prefix << 96) | rng.getrandbits(96)))
    first = rng.randrange(1, 224)
    if first in (10, 127):
        first += 1
    return "%d.%d.%d.%d" % (first, rng.randrange(256), rng.randrange(256), rng.randrange(1, 255))


def user_agent(rng):
    fmt, a, b, c, _ = rng.choices(USER_AGENTS, USER_AGENT_WEIGHTS)[0]
    return fmt.format(rng.randrange(*a), rng.randrange(*b), rng.randrange(*c))


class ProductionDataset(GeneratedEvents):
    """N events of five kinds over the 6.5 days before `end`, shaped like production traffic:
    sensors (5,000 devices re-reporting, nested device and location, readings whose fields depend
    on the model), orders (lifecycles of four versions per id, 1-4 items of high-cardinality
    SKUs), auth (unique ids, IPv4 and IPv6, user agents, free text), http access logs (unique
    ids, paths holding order ids and SKUs) and app_errors (free text, stack frames, trace ids).
    The same interface as Dataset; every event carries metrics.latency_ms."""

    shape = "production"

    def __init__(self, events, end_ms, seed=7):
        super().__init__(events, end_ms, seed)
        self.vocabulary = vocabulary(seed)
        self.zipf = list(itertools.accumulate(
            rank ** -ZIPF_S for rank in range(1, len(self.vocabulary) + 1)))
        period = len(PRODUCTION_PATTERN)
        # Where batch i's events fall among those of its stream (an order's stage depends on it).
        self.per_period = {s: PRODUCTION_PATTERN.count(s) for s in PRODUCTION_PATTERN}
        self.before = [PRODUCTION_PATTERN[:p].count(PRODUCTION_PATTERN[p]) for p in range(period)]
        self.order_slots = max(4, events * self.per_period["orders"] // period)
        # Stage s of order k is the orders event number 4 * (k + offset[s]) + s, so an order's
        # versions follow each other by about STAGE_DELAYS whatever the number of events.
        order_slot_ms = (self.end - self.start) / self.order_slots
        self.stage_offsets = tuple(int(delay / (4 * order_slot_ms)) for delay in STAGE_DELAYS)
        self.customers = max(1000, self.order_slots // 6)  # about 1.5 orders per customer
        self.users = max(2000, events // 40)
        self.devices = [self.device(d) for d in range(DEVICES)]
        self.makers = {"sensors": self.sensor_event, "orders": self.order_event,
                       "auth": self.auth_event, "http": self.http_event,
                       "app_errors": self.error_event}
        # Made before anything is timed, so the loads measure the servers, not the generator.
        self.prepared = [self.batch(i) for i in range(self.batches)]
        self.reserved = self.reserved_words()

    def stream_of(self, batch):
        return PRODUCTION_PATTERN[batch % len(PRODUCTION_PATTERN)]

    def slot(self, batch):
        """The number, among the events of its stream, of batch's first event."""
        period, position = divmod(batch, len(PRODUCTION_PATTERN))
        stream = PRODUCTION_PATTERN[position]
        return (period * self.per_period[stream] + self.before[position]) * BATCH

    def batch(self, i):
        """(stream, [(at_ms, event object)]) of batch i."""
        rng = random.Random(self.seed * 1_000_003 + i)
        stream = self.stream_of(i)
        make = self.makers[stream]
        first = self.slot(i)
        out = []
        for j in range(min(BATCH, self.events - i * BATCH)):
            n = i * BATCH + j
            at = self.start + n * self.step
            out.append((at, make(rng, n, first + j, iso(at))))
        return stream, out

    def words(self, rng, low, high):
        return " ".join(rng.choices(self.vocabulary, cum_weights=self.zipf,
                                    k=rng.randint(low, high)))

    def salted(self, x, salt):
        """x mixed with the seed and a per-use salt, as 64 random-looking bits."""
        return mix64(x + self.seed * GOLDEN64 + salt * 0x100000001B3)

    def hex_id(self, prefix, n, salt):
        """A unique id per n: mix64 is a bijection, so distinct n never share one."""
        return "%s%016x" % (prefix, mix64(n + self.seed * GOLDEN64 + salt))

    def user_id(self, user):
        return "usr_%08x" % mix32(user + self.seed * GOLDEN32 + 1)

    def order_id(self, k):
        return "ORD-%08X" % mix32(k + self.seed * GOLDEN32 + 2)

    def customer_id(self, customer):
        return "cus_%08x" % mix32(customer + self.seed * GOLDEN32 + 3)

    # -- sensors: each device's site, model and location are fixed; its readings vary

    def device(self, d):
        h = self.salted(d, 1)
        site, city_index = SENSOR_SITES[h % len(SENSOR_SITES)]
        city, country, lat, lon, _ = CITIES[city_index]
        model, pressure, air = MODELS[(h >> 8) % len(MODELS)]
        device = {"site": site, "model": model,
                  "firmware": "%d.%d.%d" % (2 + (h >> 12) % 2, (h >> 16) % 10, (h >> 20) % 30),
                  "location": {"city": city, "country": country,
                               "lat": round(lat + ((h >> 28) % 2001 - 1000) / 20000, 5),
                               "lon": round(lon + ((h >> 40) % 2001 - 1000) / 20000, 5)}}
        ident = "dev-%08x" % mix32(d + self.seed * GOLDEN32)
        return ident, device, "gw-%s-%d" % (site, (h >> 52) % 3), pressure, air

    def sensor_event(self, rng, n, slot, at):
        ident, device, gateway, pressure, air = self.devices[rng.randrange(DEVICES)]
        temp = round(rng.gauss(24, 7), 2)
        humidity = round(rng.uniform(15, 95), 1)
        reading = {"temp": temp, "humidity": humidity}
        if pressure:
            reading["pressure"] = round(rng.gauss(1013, 8), 1)
        if air:
            reading["co2"] = rng.randrange(380, 2400)
            reading["voc"] = rng.randrange(0, 600)
        status = ("error" if rng.random() < 0.01 else
                  "warn" if temp > 38 or humidity > 85 else "ok")
        return {"id": ident, "type": "reading", "occurred_at": at,
                "data": {"device": device, "gateway": gateway, "reading": reading,
                         "status": status, "units": SENSOR_UNITS},
                "metrics": {"latency_ms": int(rng.lognormvariate(3, 0.6)),
                            "battery": rng.randrange(5, 101), "rssi": -rng.randrange(30, 95)}}

    # -- orders: four versions per id, with what the order is repeated in each

    def order(self, k):
        """(id, the parts of order k that every version repeats, its statuses): a function of
        (seed, k) alone, so each version of an order says the same about it."""
        rng = random.Random(self.seed * 2**48 + 2**40 + k)
        customer = rng.randrange(self.customers)
        h = self.salted(customer, 2)
        tier = "gold" if h % 100 < 20 else "silver" if h % 100 < 55 else "bronze"
        country = COUNTRY_CODES[(h >> 8) % len(COUNTRY_CODES)]
        currency, postcode_pattern = COUNTRIES[country]
        items = []
        for _ in range(rng.choices((1, 2, 3, 4), (45, 30, 15, 10))[0]):
            sku = rng.getrandbits(24)
            items.append({"sku": "SKU-%06X" % sku, "qty": rng.choices((1, 2, 3), (70, 20, 10))[0],
                          "price": sku_price(sku)})
        parts = {"customer": {"id": self.customer_id(customer), "tier": tier, "country": country},
                 "total": round(sum(item["qty"] * item["price"] for item in items), 2),
                 "currency": currency, "items": items,
                 "shipping": {"city": rng.choice(CITIES_BY_COUNTRY[country]),
                              "postcode": postcode(rng, postcode_pattern), "country": country,
                              "method": rng.choice(SHIPPING_METHODS)},
                 "payment": {"method": rng.choice(PAYMENT_METHODS),
                             "provider": rng.choice(PAYMENT_PROVIDERS)},
                 "channel": rng.choice(CHANNELS)}
        return self.order_id(k), parts, rng.choices(ORDER_FATES, ORDER_FATE_WEIGHTS)[0]

    def order_event(self, rng, n, slot, at):
        stage = slot % 4
        ident, parts, statuses = self.order(slot // 4 - self.stage_offsets[stage])
        data = {"customer": parts["customer"], "total": parts["total"],
                "currency": parts["currency"], "status": statuses[stage], "items": parts["items"],
                "shipping": parts["shipping"], "payment": parts["payment"],
                "channel": parts["channel"], "version": stage + 1}
        return {"id": ident, "type": "order." + statuses[stage], "occurred_at": at, "data": data,
                "metrics": {"latency_ms": int(rng.lognormvariate(3.5, 0.7))}}

    # -- auth: unique ids, returning users, free text

    def home_ip(self, user):
        """The address a user usually comes from (so some addresses recur, most do not)."""
        return random_ip(random.Random(self.salted(user, 3)))

    def auth_event(self, rng, n, slot, at):
        kind, outcome = rng.choices(AUTH_KINDS, AUTH_KIND_WEIGHTS)[0]
        user = rng.randrange(self.users)
        ip = self.home_ip(user) if rng.random() < 0.6 else random_ip(rng)
        city, country = CITIES[rng.randrange(len(CITIES))][:2]
        data = {"user": self.user_id(user), "ip": ip, "user_agent": user_agent(rng),
                "message": self.words(rng, 6, 20), "method": rng.choice(AUTH_METHODS),
                "outcome": outcome, "mfa": rng.random() < 0.4,
                "session": {"id": self.hex_id("ses_", n, 4),
                            "ttl_s": rng.choice((900, 3600, 28800, 86400))},
                "geo": {"country": country, "city": city}, "tenant": rng.choice(TENANTS),
                "client": {"app": rng.choice(CLIENT_APPS),
                           "version": "%d.%d.%d" % (rng.randrange(3, 7), rng.randrange(20),
                                                    rng.randrange(10))},
                "risk": {"score": round(rng.random(), 3),
                         "reasons": rng.sample(RISK_REASONS, rng.choice((0, 0, 1, 1, 2)))}}
        return {"id": self.hex_id("au_", n, 5), "type": kind, "occurred_at": at, "data": data,
                "metrics": {"latency_ms": int(rng.lognormvariate(4, 0.8)),
                            "attempts": rng.choice((1, 1, 1, 2, 3))}}

    # -- http: access logs whose paths name orders, customers and SKUs

    def http_event(self, rng, n, slot, at):
        method, template, content_type, _ = rng.choices(HTTP_ROUTES, HTTP_ROUTE_WEIGHTS)[0]
        path = template.format(
            order=self.order_id(rng.randrange(-self.stage_offsets[3], self.order_slots // 4)),
            customer=self.customer_id(rng.randrange(self.customers)),
            sku="SKU-%06X" % rng.getrandbits(24), payment="pay_%012x" % rng.getrandbits(48),
            hex="%08x" % rng.getrandbits(32), category=rng.choice(CATEGORIES),
            page=rng.randrange(1, 6))
        status = rng.choices(HTTP_STATUSES, HTTP_STATUS_WEIGHTS)[0]
        duration = round(rng.lognormvariate(3, 1), 2)
        data = {"request": {"method": method, "path": path, "host": rng.choice(HTTP_HOSTS),
                            "protocol": rng.choice(HTTP_PROTOCOLS)},
                "response": {"status": status, "content_type": content_type,
                             "bytes": 0 if status in (204, 304) else
                             int(rng.lognormvariate(7.5, 1.6))},
                "duration_ms": duration, "referrer": rng.choice(REFERRERS),
                "user_agent": user_agent(rng),
                "client": {"ip": random_ip(rng), "country": rng.choice(COUNTRY_CODES)},
                "service": rng.choice(HTTP_SERVICES), "instance": "web-%d" % rng.randrange(12),
                "region": rng.choice(REGIONS), "trace_id": self.hex_id("", n, 6) + "%016x" %
                rng.getrandbits(64)}
        return {"id": self.hex_id("req_", n, 7), "type": "access", "occurred_at": at, "data": data,
                "metrics": {"latency_ms": int(duration),
                            "upstream_ms": int(duration * rng.uniform(0.3, 0.95)),
                            "bytes_in": rng.randrange(0, 4000)}}

    # -- app_errors: free text, stack frames, unique trace ids

    def error_event(self, rng, n, slot, at):
        service, language, frames, types, paths = rng.choice(ERROR_SERVICES)
        stack = []
        for _ in range(rng.randint(3, 8)):
            file, function = rng.choice(frames)
            stack.append({"file": file, "line": rng.randrange(12, 1400), "function": function})
        data = {"service": service, "language": language, "env": rng.choice(ENVIRONMENTS),
                "version": "%d.%d.%d" % (rng.randrange(1, 5), rng.randrange(30), rng.randrange(10)),
                "host": "%s-%08x-%d" % (service, self.salted(rng.randrange(8), 8) & MASK32,
                                        rng.randrange(4)),
                "error": {"type": rng.choice(types), "code": rng.choice((500, 500, 502, 503, 504))},
                "message": self.words(rng, 6, 14), "trace_id": self.hex_id("", n, 9) + "%016x" %
                rng.getrandbits(64),
                "request": {"method": rng.choice(("GET", "POST")), "path": rng.choice(paths)},
                "frames": stack, "user": self.user_id(rng.randrange(self.users))}
        return {"id": self.hex_id("err_", n, 10), "type": "error", "occurred_at": at, "data": data,
                "metrics": {"latency_ms": int(rng.lognormvariate(5, 1))}}

    def reserved_words(self):
        """Words that occur outside data.message: those of every table, and every key and string
        of the first two patterns of batches but their messages. Searches never ask for these,
        nor for a word of the letters a-f alone (one that a hex id could spell), so a word asked
        for is found in free text only, the same way by both servers' tokenizers."""
        words = set(text_words(" ".join(strings_in(PRODUCTION_TABLES))))
        for _, events in self.prepared[:2 * len(PRODUCTION_PATTERN)]:
            for _, event in events:
                words.update(text_words(" ".join(strings_in(event, skip_key="message"))))
        return words


class ProductionTruth:
    """What every question must answer on the production shape, computed from the generated
    batches; also which words, site and address the questions ask for, chosen from the data."""

    COMMON_FROM_RANK = 3
    SELECTIVE_RANKS = (2000, 5000)  # Zipf ranks tried first for the selective word
    SELECTIVE_MATCHES = (1, 50)  # how many of the day's messages may hold it
    LIMIT = 1000  # the questions' limit: an exact answer must fit in it

    def __init__(self, data):
        self.day_from = data.end - DAY
        self.week_from = data.end - 7 * DAY
        latest = {}  # id -> (at, event): the current state of orders and sensors
        per_stream, buckets = {}, {}
        messages = []  # (id, set of words) of the free text of the last 24 h
        ip_events = {}  # data.ip -> ids of its events, in order of first appearance
        for stream, events in data.prepared:
            for at, event in events:
                count_history(per_stream, buckets, stream, at, event, self.day_from)
                if at >= self.day_from and stream in TEXT_STREAMS:
                    messages.append((event["id"], set(event["data"]["message"].split())))
                if stream in ("orders", "sensors"):
                    previous = latest.get(event["id"])
                    if previous is None or previous[0] <= at:
                        latest[event["id"]] = (at, event)
                ip = event["data"].get("ip")
                if ip is not None:
                    ip_events.setdefault(ip, []).append(event["id"])
        self.per_stream = per_stream
        self.buckets = buckets
        self.messages = len(messages)

        usable = [w not in data.reserved and not set(w) <= HEX_LETTERS for w in data.vocabulary]
        self.common_words = self.pick_common(data.vocabulary, usable)
        first, second = self.common_words
        self.two_words = {i for i, words in messages if first in words and second in words}
        self.rare_word, self.rare_rank = self.pick_selective(data.vocabulary, usable, messages)
        self.rare = {i for i, words in messages if self.rare_word in words}

        self.ip, self.ip_matches = self.pick_ip(ip_events)
        self.sensor_site = QUESTION_SITE
        self.orders = {i for i, (_, e) in latest.items() if e["id"].startswith("ORD-")
                       and e["data"]["customer"]["tier"] == "gold"
                       and e["data"]["status"] == "paid" and e["data"]["total"] > 900}
        self.sensors = {i for i, (_, e) in latest.items() if e["id"].startswith("dev-")
                        and e["data"]["device"]["site"] == self.sensor_site
                        and e["data"]["status"] == "warn"
                        and e["data"]["reading"]["humidity"] > 50}
        for what, ids in (("orders", self.orders), ("sensors", self.sensors),
                          ("ip", self.ip_matches)):
            if len(ids) > self.LIMIT:
                raise SystemExit("production shape: %d %s matches, more than the limit of %d"
                                 % (len(ids), what, self.LIMIT))

    def pick_common(self, ranked, usable):
        """The two most frequent usable words from rank 3 on (ranks 3 and 4 are each in about
        40% and 30% of the messages, as `session` and `token` are in the classic shape)."""
        words = [w for rank, w in enumerate(ranked, 1)
                 if rank >= self.COMMON_FROM_RANK and usable[rank - 1]][:2]
        return tuple(words)

    def pick_selective(self, ranked, usable, messages):
        """(word, rank): the first usable word of rank 2,000-5,000 (then 1,999 down to 11) that
        between 1 and 50 of the last 24 h's messages hold."""
        counts = collections.Counter(w for _, words in messages for w in words)
        low, high = self.SELECTIVE_RANKS
        fewest, most = self.SELECTIVE_MATCHES
        for rank in itertools.chain(range(low, high + 1), range(low - 1, 10, -1)):
            word = ranked[rank - 1]
            if usable[rank - 1] and fewest <= counts[word] <= most:
                return word, rank
        raise SystemExit("production shape: no word of rank 11-%d is in 1-%d of the last 24 h's "
                         "%d messages (too few events?)" % (high, most, len(messages)))

    @staticmethod
    def pick_ip(ip_events):
        """(address, ids): the first address seen in 2 or 3 events, else the first in one."""
        for wanted in ((2, 3), (1, 1)):
            for ip, ids in ip_events.items():
                if wanted[0] <= len(ids) <= wanted[1]:
                    return ip, set(ids)
        raise SystemExit("production shape: no data.ip")

    def describe(self):
        """What the questions ask for, for the line under the table's heading."""
        return ("two common words `{} {}` (both in {:,} of the last 24 h's {:,} messages); "
                "selective word `{}` (Zipf rank {:,}, in {:,}); sensors site `{}`; data.ip `{}` "
                "({:,} events)").format(
            self.common_words[0], self.common_words[1], len(self.two_words), self.messages,
            self.rare_word, self.rare_rank, len(self.rare), self.sensor_site, self.ip,
            len(self.ip_matches))
