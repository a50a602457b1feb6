// Storage benchmark: loads N events through the real ingest path and projector of the RocksDB
// plugin (in process, no HTTP), then measures query and search latency percentiles.
//
//   eventsvc_storage_bench [--events N] [--dir DIR] [--queries Q] [--only NAME-PART]
//                          [--shape classic|production] [--expire]
//
// --expire ends with retention's removal of the oldest quarter of the events (an erasure of every
// version before an instant) and prints the time until it is hidden: the in-process profile of a
// retention sweep.
//
// The production shape is what the in-process profile of projection is taken on: an id unique
// to each event, IPv4 and IPv6 addresses, user agents, SKUs in an array of objects, UTF-8 city
// names and messages of 6-20 words drawn Zipf-like from /usr/share/dict/words (about 25 leaves an
// event); its searches are for a word of rank 3 and one of rank 3,000.
//
// Prints one line per measurement; see bench/README.md for what each query exercises. While it
// loads, it prints the process's resident memory at every tenth of the events projected, so that
// a run at 10M events shows whether memory grows with the events stored.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "rocksdb_storage.hpp"
#include "support/plugin_context.hpp"

namespace rs = eventsvc::plugins::rocksdb_storage;
namespace sdk = eventsvc::sdk;
namespace toolkit = eventsvc::toolkit;
namespace json = sdk::json;
using Clock = std::chrono::steady_clock;

namespace {

const sdk::Tenant kTenant{"bench", sdk::Environment::test};

// Resident memory of this process now, in MiB.
double resident_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0;
  long resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1 << 20);
}
const char* kWords[] = {"disk",   "network", "timeout",  "error",    "warning",
                        "kernel", "panic",   "memory",   "pressure", "latency",
                        "spike",  "restart", "backup",   "quota",    "replica",
                        "lag",    "cpu",     "throttle", "retry",    "handshake"};

struct Options {
  std::size_t events = 1000000;
  std::size_t queries = 200;
  std::string dir = "/tmp/eventsvc-bench";
  bool accept_only = false;  // measure durable accept alone (projector off)
  std::string only;          // run only the measurements whose name contains this
  bool production = false;   // --shape production
  bool expire = false;       // --expire: then erase the oldest quarter as retention would
};

// Words of /usr/share/dict/words (lowercase ASCII letters, 3-12 of them) in a fixed shuffled
// order, drawn with Zipf weights 1/rank^1.1: a real vocabulary's long tail of rare words.
class Vocabulary {
 public:
  Vocabulary() {
    std::ifstream in("/usr/share/dict/words");
    for (std::string word; std::getline(in, word);) {
      if (word.size() < 3 || word.size() > 12) continue;
      if (std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
        words_.push_back(word);
    }
    if (words_.empty()) {
      std::fprintf(stderr, "--shape production needs /usr/share/dict/words (Debian: wamerican)\n");
      std::exit(2);
    }
    std::shuffle(words_.begin(), words_.end(), std::mt19937(7));
    double total = 0;
    cumulative_.reserve(words_.size());
    for (std::size_t rank = 1; rank <= words_.size(); ++rank) {
      total += 1.0 / std::pow(static_cast<double>(rank), 1.1);
      cumulative_.push_back(total);
    }
  }
  const std::string& draw(std::mt19937& random) const {
    const double at = std::uniform_real_distribution<double>(0, cumulative_.back())(random);
    const auto it = std::lower_bound(cumulative_.begin(), cumulative_.end(), at);
    return words_[static_cast<std::size_t>(it - cumulative_.begin())];
  }
  // The word of Zipf rank `rank` (1: the most common).
  const std::string& ranked(std::size_t rank) const { return words_[rank - 1]; }

 private:
  std::vector<std::string> words_;
  std::vector<double> cumulative_;
};

const Vocabulary& vocabulary() {
  static const Vocabulary words;
  return words;
}

const char* kCities[] = {"Zürich", "São Paulo", "Kraków",   "Malmö",    "東京",   "Lyon",
                         "Ōsaka",  "Reykjavík", "Montréal", "Curitiba", "Gdańsk", "Tromsø"};
const char* kAgents[] = {
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%d.0.0.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/%d.1 Safari",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:%d.0) Gecko/20100101 Firefox/%d.0",
    "okhttp/4.%d.2",
    "curl/8.%d.0",
    "python-requests/2.%d.1"};

std::string ipv4(std::mt19937& random) {
  return std::to_string(random() % 223 + 1) + "." + std::to_string(random() % 256) + "." +
         std::to_string(random() % 256) + "." + std::to_string(random() % 256);
}

std::string ipv6(std::mt19937& random) {
  char text[64];
  std::snprintf(text, sizeof text, "2001:db8:%x:%x::%x", static_cast<unsigned>(random() % 65536),
                static_cast<unsigned>(random() % 65536), static_cast<unsigned>(random() % 65536));
  return text;
}

// One production-like event: a login with its client, or an order with its items, by turns.
json::object production_event(std::size_t i, sdk::Millis at, std::mt19937& random) {
  const auto& words = vocabulary();
  std::string message;
  const std::size_t length = 6 + random() % 15;
  for (std::size_t w = 0; w < length; ++w) {
    if (w) message.push_back(' ');
    message += words.draw(random);
  }
  char agent[160];
  const auto version = static_cast<int>(random() % 40 + 80);
  std::snprintf(agent, sizeof agent, kAgents[random() % std::size(kAgents)], version, version);
  char sku[16];
  json::array items;
  for (std::size_t k = 0, n = 1 + random() % 3; k < n; ++k) {
    std::snprintf(sku, sizeof sku, "SKU-%06x", static_cast<unsigned>(random() % 0xFFFFFF));
    items.push_back(json::object{{"sku", sku},
                                 {"qty", static_cast<int>(1 + random() % 4)},
                                 {"price", static_cast<double>(random() % 100000) / 100.0}});
  }
  return json::object{
      {"id", "evt-" + std::to_string(i)},
      {"type", i % 3 == 0 ? "order.paid" : "login"},
      {"occurred_at", toolkit::format_rfc3339(at)},
      {"data",
       json::object{
           {"user", json::object{{"id", "u-" + std::to_string(random() % 200000)},
                                 {"tier", i % 5 == 0 ? "gold" : "silver"},
                                 {"city", kCities[random() % std::size(kCities)]}}},
           {"client", json::object{{"ip", i % 5 == 0 ? ipv6(random) : ipv4(random)},
                                   {"user_agent", agent},
                                   {"session", "s-" + std::to_string(random())}}},
           {"order", json::object{{"id", "o-" + std::to_string(i / 3)},
                                  {"total", static_cast<double>(random() % 200000) / 100.0},
                                  {"currency", i % 4 == 0 ? "USD" : "EUR"},
                                  {"items", std::move(items)}}},
           {"status", i % 97 == 0 ? "failed" : "ok"},
           {"message", message}}},
      {"metrics", json::object{{"latency_ms", static_cast<int>(random() % 500)},
                               {"bytes", static_cast<int>(random() % 100000)}}}};
}

sdk::IncomingWrite make_write(std::size_t first, std::size_t count, sdk::Millis base,
                              std::mt19937& random, bool production) {
  sdk::IncomingWrite write;
  write.tenant = kTenant;
  write.idempotency_key = "bench-" + std::to_string(first);
  char receipt[32];
  std::snprintf(receipt, sizeof receipt, "req_%016zx", first);
  write.receipt_id = receipt;
  write.envelope.stream = "stream-" + std::to_string(first % 50);
  write.envelope.namespace_name = "ns-" + std::to_string(first % 7);
  write.received_at = toolkit::now_millis();
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = first; i < first + count; ++i) {
    if (production) {
      const sdk::Millis at = base + static_cast<sdk::Millis>(i) * 10;
      json::object event = production_event(i, at, random);
      sdk::IncomingEvent incoming;
      incoming.version = {std::string(event.at("id").as_string()), at,
                          toolkit::event_digest(event)};
      incoming.event = std::move(event);
      pairs.emplace_back(incoming.version.id, incoming.version.digest);
      write.events.push_back(std::move(incoming));
      continue;
    }
    std::string text;
    for (int w = 0; w < 8; ++w) {
      if (w) text.push_back(' ');
      text += kWords[random() % 20];
    }
    if (i % 1000 == 0) text += " rareword" + std::to_string(i % 7);
    json::object event{
        {"id", "dev-" + std::to_string(i % 100000)},
        {"type", i % 10 == 0 ? "alert" : "reading"},
        {"occurred_at", toolkit::format_rfc3339(base + static_cast<sdk::Millis>(i) * 10)},
        {"data", json::object{{"temp", static_cast<double>(random() % 4000) / 100.0},
                              {"site", "site-" + std::to_string(i % 200)},
                              {"status", i % 97 == 0 ? "alarm" : "ok"},
                              {"message", text}}},
        {"metrics", json::object{{"cpu", static_cast<double>(random() % 100) / 100.0}}}};
    sdk::IncomingEvent incoming;
    incoming.version = {std::string(event.at("id").as_string()),
                        base + static_cast<sdk::Millis>(i) * 10, toolkit::event_digest(event)};
    incoming.event = std::move(event);
    pairs.emplace_back(incoming.version.id, incoming.version.digest);
    write.events.push_back(std::move(incoming));
  }
  write.event_set_sha256 = toolkit::event_set_sha256(pairs);
  return write;
}

// A BM25 search of history for `text`, best 25 of at most 50,000 candidates, from `from` on
// (all time without it).
sdk::RecordQuery ranked_search(const std::string& text, std::optional<sdk::Millis> from) {
  sdk::RecordQuery query;
  query.source = sdk::Source::history;
  query.text = toolkit::parse_text_query(text);
  query.rank_by_text = true;
  if (from) query.where = {{*sdk::FieldPath::parse("timestamp"), sdk::Op::gte, json::value(*from)}};
  query.limit = 25;
  query.scan_limit = 50000;
  return query;
}

void report(const char* name, std::vector<double> samples, std::size_t results) {
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) {
    return samples[static_cast<std::size_t>(q * static_cast<double>(samples.size() - 1))];
  };
  std::printf("%-44s p50 %8.3f ms  p95 %8.3f ms  p99 %8.3f ms  (%zu results)\n", name, at(0.5),
              at(0.95), at(0.99), results);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--events")) options.events = std::stoul(argv[i + 1]);
    if (!std::strcmp(argv[i], "--queries")) options.queries = std::stoul(argv[i + 1]);
    if (!std::strcmp(argv[i], "--dir")) options.dir = argv[i + 1];
    if (!std::strcmp(argv[i], "--shape"))
      options.production = !std::strcmp(argv[i + 1], "production");
  }
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--accept-only")) options.accept_only = true;
    if (!std::strcmp(argv[i], "--expire")) options.expire = true;
    if (!std::strcmp(argv[i], "--only")) options.only = argv[i + 1];
  }
  std::filesystem::remove_all(options.dir);
  // Projection's own rate is measured: writes are never refused for the lag they cause.
  json::object config{{"block_cache_mb", 512}, {"projector", json::object{{"max_lag_ms", 0}}}};
  if (options.accept_only) config["projector"] = json::object{{"enabled", false}};
  auto context = eventsvc::testing::plugin_context(eventsvc::sdk::manifest_of<rs::RocksdbStorage>(),
                                                   config, options.dir);
  rs::RocksdbStorage storage(context);
  storage.use_embedder(nullptr);
  storage.start();

  // Load: 4 writers, 100 events per write (the API maximum), durable accept; then wait for the
  // projector to drain.
  const sdk::Millis base =
      toolkit::now_millis() - static_cast<sdk::Millis>(options.events) * 10 - 60000;
  const auto render = [](const sdk::AcceptSummary&) { return std::string("{}"); };
  const auto load_started = Clock::now();
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> writers;
  writers.reserve(4);
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      std::mt19937 random(static_cast<unsigned>(t));
      while (true) {
        const std::size_t first = next.fetch_add(100);
        if (first >= options.events) break;
        storage.accept(make_write(first, std::min<std::size_t>(100, options.events - first), base,
                                  random, options.production),
                       render);
      }
    });
  }
  // Events projected: those accepted less the backlog's writes (100 events each).
  auto projected = [&] {
    const std::size_t accepted = std::min(next.load(), options.events);
    return accepted - std::min(accepted, storage.status(kTenant).projection_backlog * 100);
  };
  std::atomic<bool> loaded{false};
  std::thread memory([&] {
    std::size_t tenth = 1;
    double peak = 0;
    while (!loaded && tenth <= 10) {
      peak = std::max(peak, resident_mib());
      if (projected() >= options.events * tenth / 10) {
        std::printf("projected %zu events: resident %.0f MiB (peak so far %.0f MiB)\n",
                    options.events * tenth / 10, resident_mib(), peak);
        std::fflush(stdout);
        ++tenth;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  for (auto& writer : writers)
    writer.join();
  const double accept_s = std::chrono::duration<double>(Clock::now() - load_started).count();
  if (options.accept_only) {
    loaded = true;
    memory.join();
    std::printf(
        "accepted %zu events (fsync'd, 100 per write, 4 writers) in %.1f s = %.0f events/s\n",
        options.events, accept_s, static_cast<double>(options.events) / accept_s);
    return 0;
  }
  while (storage.status(kTenant).projection_backlog > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the last tenth's line
  loaded = true;
  memory.join();
  const double project_s = std::chrono::duration<double>(Clock::now() - load_started).count();
  std::printf(
      "loaded %zu events: accepted (fsync'd) in %.1f s = %.0f events/s; projected and indexed "
      "after %.1f s = %.0f events/s\n",
      options.events, accept_s, static_cast<double>(options.events) / accept_s, project_s,
      static_cast<double>(options.events) / project_s);

  std::mt19937 random(42);
  auto run = [&](const char* name, auto make_query) {
    if (std::strstr(name, options.only.c_str()) == nullptr) return;
    std::vector<double> samples;
    std::size_t results = 0;
    for (std::size_t q = 0; q < options.queries; ++q) {
      sdk::RecordQuery query = make_query(q);
      const auto started = Clock::now();
      results = 0;
      storage.scan(kTenant, query, [&](const sdk::Record&, double) {
        ++results;
        return true;
      });
      samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - started).count());
    }
    report(name, samples, results);
  };
  auto field = [](const char* name) { return *sdk::FieldPath::parse(name); };
  const sdk::Millis last = base + static_cast<sdk::Millis>(options.events) * 10;

  if (options.production) {
    const std::string common = vocabulary().ranked(3);
    const std::string rare = vocabulary().ranked(3000);
    for (const auto& [name, word] :
         {std::pair{"search a word of rank 3 (BM25, top 25, 24 h)", common},
          std::pair{"search a word of rank 3000 (BM25, top 25, 24 h)", rare}}) {
      run(name, [&, word = word](std::size_t) { return ranked_search(word, last - 86400000); });
    }
    run("query history one user id", [&](std::size_t) {
      sdk::RecordQuery query;
      query.source = sdk::Source::history;
      query.where = {{field("payload.user.id"), sdk::Op::eq,
                      json::value("u-" + std::to_string(random() % 200000))}};
      return query;
    });
    run("query current gold, failed, USD", [&](std::size_t) {
      sdk::RecordQuery query;
      query.where = {{field("payload.user.tier"), sdk::Op::eq, json::value("gold")},
                     {field("payload.status"), sdk::Op::eq, json::value("failed")},
                     {field("payload.order.currency"), sdk::Op::eq, json::value("USD")}};
      return query;
    });
  }
  run("query current id eq", [&](std::size_t) {
    sdk::RecordQuery query;
    query.where = {
        {field("id"), sdk::Op::eq, json::value("dev-" + std::to_string(random() % 100000))}};
    return query;
  });
  run("query current payload.site eq, limit 100", [&](std::size_t) {
    sdk::RecordQuery query;
    query.where = {{field("payload.site"), sdk::Op::eq,
                    json::value("site-" + std::to_string(random() % 200))}};
    return query;
  });
  run("query current site, status and temp range, limit 1000", [&](std::size_t) {
    sdk::RecordQuery query;
    query.where = {
        {field("payload.site"), sdk::Op::eq, json::value("site-" + std::to_string(random() % 200))},
        {field("payload.status"), sdk::Op::eq, json::value("ok")},
        {field("payload.temp"), sdk::Op::gt, json::value(30.0)}};
    query.limit = 1000;
    return query;
  });
  run("query history status=alarm AND type=alert (1h)", [&](std::size_t) {
    sdk::RecordQuery query;
    query.source = sdk::Source::history;
    const sdk::Millis from = base + static_cast<sdk::Millis>(random() % options.events) * 10;
    query.where = {{field("payload.status"), sdk::Op::eq, json::value("alarm")},
                   {field("type"), sdk::Op::eq, json::value("alert")},
                   {field("timestamp"), sdk::Op::gte, json::value(from)},
                   {field("timestamp"), sdk::Op::lt, json::value(from + 3600000)}};
    query.limit = 1000;
    return query;
  });
  run("query history payload.temp range (10 min)", [&](std::size_t) {
    sdk::RecordQuery query;
    query.source = sdk::Source::history;
    const sdk::Millis from = base + static_cast<sdk::Millis>(random() % options.events) * 10;
    query.where = {{field("payload.temp"), sdk::Op::gt, json::value(39.5)},
                   {field("timestamp"), sdk::Op::gte, json::value(from)},
                   {field("timestamp"), sdk::Op::lt, json::value(from + 600000)}};
    query.limit = 1000;
    return query;
  });
  run("query history latest 100 (time scan)", [&](std::size_t) {
    sdk::RecordQuery query;
    query.source = sdk::Source::history;
    query.where = {{field("timestamp"), sdk::Op::gte, json::value(last - 3600000)}};
    return query;
  });
  run("search 'rareword3' (BM25, top 25, all time)",
      [&](std::size_t) { return ranked_search("rareword3", std::nullopt); });
  run("search 'kernel panic' last 5 min (BM25, top 25)",
      [&](std::size_t) { return ranked_search("kernel panic", last - 300000); });
  if (options.expire) {
    // Retention's removal of the oldest quarter: an erasure of every version before an instant.
    sdk::ErasureRequest expiry;
    expiry.tenant = kTenant;
    expiry.idempotency_key = "bench-expiry";
    expiry.erasure_id = "era_00000000000000e1";
    expiry.key_id = "retention";
    expiry.where = {{field("timestamp"), sdk::Op::lt,
                     json::value(base + static_cast<sdk::Millis>(options.events / 4) * 10)}};
    expiry.received_at = toolkit::now_millis();
    const auto started = Clock::now();
    storage.erase(expiry, [](const sdk::ErasureStatus&) { return std::string("{}"); });
    std::optional<sdk::ErasureStatus> status;
    while (!(status = storage.erasure(kTenant, expiry.erasure_id)) ||
           status->state == sdk::ErasureState::accepted) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::printf("expired the oldest quarter: %zu versions hidden in %.2f s\n",
                status->erased_versions,
                std::chrono::duration<double>(Clock::now() - started).count());
  }
  storage.stop();
  std::printf(
      "database size: %.0f MiB\n",
      static_cast<double>([&] {
        std::uintmax_t total = 0;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(options.dir)) {
          if (entry.is_regular_file()) total += entry.file_size();
        }
        return total;
      }()) /
          (1 << 20));
  return 0;
}
