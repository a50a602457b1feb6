// eventsvc servers sharing one durable log in a real PostgreSQL: writes made through any server
// are read on every server with the same answers, an idempotency key means the same write on all
// of them, a server killed mid-run loses nothing its clients were told was accepted, and a server
// that starts empty catches up before it says it is ready; an erasure reaches every server and the
// log itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "support/api_client.hpp"
#include "support/files_holding.hpp"
#include "support/postgres_process.hpp"
#include "support/server_process.hpp"
#include "support/tail_client.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::testing {
namespace {

using namespace std::chrono_literals;

class SharedLogTest : public ::testing::Test {
 protected:
  // A server of the log; its keys are the shared key file's. Started unless `start` is false.
  ServerProcess& add_server(const std::string& host_id, bool start = true) {
    servers_.push_back(std::make_unique<ServerProcess>(config_of(host_id)));
    if (!start) return *servers_.back();
    servers_.back()->start();
    if (key_.empty()) key_ = servers_.back()->create_key("acme", "live");
    return *servers_.back();
  }

  std::string config_of(const std::string& host_id) const {
    TestConfig config;
    std::string plugins = default_plugins();
    const auto replace = [&](const std::string& from, const std::string& to) {
      plugins.replace(plugins.find(from), from.size(), to);
    };
    replace("  apikey:\n", "  apikey:\n    config:\n      keys_file: " +
                               (keys_.path() / "keys.json").string() + "\n");
    replace("  rocksdb:\n",
            "  rocksdb:\n  postgres:\n    config:\n      conninfo: \"" +
                (conninfo_.empty() ? postgres_.conninfo() : conninfo_) +
                "\"\n      host_id: " + host_id +
                "\n      host_timeout_s: 2\n      keep_entries_s: " + keep_entries_s_ + "\n");
    config.plugins = plugins;
    // One cursor key for every server: a page read on one continues on any other.
    config.other = "cursors:\n  secret_file: " + (keys_.path() / "cursor.key").string() + "\n";
    return config.yaml();
  }

  ApiClient client(std::size_t server) { return ApiClient(servers_[server]->port(), key_); }

  // What a server answers about every event: the count of current records and of versions, and
  // the ids of the current ones.
  struct Contents {
    std::int64_t current = 0;
    std::int64_t versions = 0;
    std::vector<std::string> ids;
    bool operator==(const Contents&) const = default;
  };
  Contents contents(std::size_t server) {
    auto api = client(server);
    Contents seen;
    const auto count = [&](const char* source) {
      const auto answer =
          api.analyze({{"source", source},
                       {"where", json::object{{"timestamp", json::object{{"gte", "now-30d"}}}}},
                       {"aggregations", json::object{{"n", json::object{{"op", "count"}}}}}});
      EXPECT_EQ(answer.status, 200) << answer.body;
      return answer.status == 200 ? answer.json().at("aggregations").at("n").at("value").as_int64()
                                  : -1;
    };
    seen.current = count("current");
    seen.versions = count("history");
    const auto listed = api.query({{"limit", 1000}, {"order", "asc"}});
    EXPECT_EQ(listed.status, 200) << listed.body;
    if (listed.status == 200) seen.ids = ids_of(listed.json());
    std::sort(seen.ids.begin(), seen.ids.end());
    return seen;
  }

  PostgresProcess postgres_;
  std::string keep_entries_s_ = "86400";  // of servers added from now on
  std::string conninfo_;                  // the servers' connection string; empty: postgres_'s
  TempDir keys_;
  std::vector<std::unique_ptr<ServerProcess>> servers_;
  std::string key_;
};

// What clients were told was accepted: receipts, and the ids of the events of those writes.
struct Acknowledged {
  void add(const HttpResponse& answer, const std::string& name, int events) {
    const std::lock_guard lock(mutex);
    receipts.emplace_back(answer.json().at("receipt_id").as_string());
    for (int i = 0; i < events; ++i)
      ids.insert(name + "-" + std::to_string(i));
  }
  std::size_t writes() {
    const std::lock_guard lock(mutex);
    return receipts.size();
  }

  std::mutex mutex;
  std::vector<std::string> receipts;
  std::set<std::string> ids;
};

json::object batch_of(const std::string& prefix, int events) {
  json::array list;
  for (int i = 0; i < events; ++i) {
    list.push_back(make_event(prefix + "-" + std::to_string(i), "reading", now_ms() - 1000 + i,
                              json::object{{"value", i}, {"note", "written as " + prefix}}));
  }
  return make_batch("sensors", std::move(list));
}

TEST_F(SharedLogTest, AWriteThroughOneServerIsReadAndVerifiedOnEvery) {
  for (const char* host : {"h1", "h2", "h3"})
    add_server(host);
  const auto batch = batch_of("a", 20);
  const auto accepted = client(0).ingest(batch, "shared-write-1");
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  const std::string receipt(accepted.json().at("receipt_id").as_string());
  // Verified, asked of another server: every server has the events then.
  const auto final_state = client(1).wait_final(receipt);
  EXPECT_EQ(final_state.at("status"), "verified");
  EXPECT_EQ(final_state.at("verified_events"), 20);
  const Contents first = contents(0);
  EXPECT_EQ(first.current, 20);
  EXPECT_EQ(first.versions, 20);
  EXPECT_EQ(first.ids.size(), 20U);
  EXPECT_EQ(contents(1), first);
  EXPECT_EQ(contents(2), first);
  // The same key through another server is the same write: its answer, byte for byte.
  const auto replayed = client(2).ingest(batch, "shared-write-1");
  EXPECT_EQ(replayed.status, 202);
  EXPECT_EQ(replayed.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(replayed.body, accepted.body);
  // Events accepted before, through another server, are duplicates.
  const auto again = client(1).ingest(batch, "shared-write-2");
  ASSERT_EQ(again.status, 202);
  EXPECT_EQ(again.json().at("duplicates"), 20);
  EXPECT_EQ(again.json().at("accepted"), 0);
}

TEST_F(SharedLogTest, APageReadOnOneServerContinuesOnAnother) {
  for (const char* host : {"h1", "h2"})
    add_server(host);
  const auto accepted = client(0).ingest(batch_of("p", 50), "shared-pages-1");
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  client(1).wait_final(std::string(accepted.json().at("receipt_id").as_string()));
  for (const auto& [read, body] :
       {std::pair{std::string("query"), json::object{{"limit", 10}}},
        std::pair{std::string("search"), json::object{{"query", "written"}, {"limit", 10}}}}) {
    std::multiset<std::string> seen;
    std::string cursor;
    for (std::size_t page = 0; page < 10; ++page) {
      // Pages alternate between the servers.
      const auto response = client(page % 2).http().post(
          "/v1/" + read + (cursor.empty() ? "" : "?cursor=" + cursor), key_, json::value(body));
      ASSERT_EQ(response.status, 200) << response.body;
      const auto answer = response.json();
      for (const auto& id : ids_of(answer))
        seen.insert(id);
      const auto* next = answer.as_object().if_contains("next_cursor");
      if (next == nullptr) break;
      cursor = std::string(next->as_string());
    }
    EXPECT_EQ(seen.size(), 50U) << read;
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 50U) << read;
  }
}

TEST_F(SharedLogTest, ATailOnOneServerSeesWritesThroughAnotherAndResumesOnAThird) {
  for (const char* host : {"h1", "h2", "h3"})
    add_server(host);
  // The ids of the events a tail received.
  const auto ids_of_messages = [](const TailClient& tail) {
    std::vector<std::string> ids;
    for (const auto& event : tail.messages())
      ids.push_back(std::string(json::parse(event.data).at("id").as_string()));
    return ids;
  };
  const auto written_ids = [](const std::string& prefix, int count) {
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i)
      ids.push_back(prefix + "-" + std::to_string(i));
    return ids;
  };
  TailClient tail(servers_[1]->port(), key_, "fields=id");
  ASSERT_EQ(tail.status(), 200) << tail.error_body();
  ASSERT_EQ(client(0).ingest(batch_of("t", 30), "tail-write-1").status, 202);
  tail.read_messages(30, 60s);
  EXPECT_EQ(ids_of_messages(tail), written_ids("t", 30));
  const std::string last = tail.messages().back().id;
  tail.close();
  // Written through the first server while the client is away; it resumes on the third.
  ASSERT_EQ(client(0).ingest(batch_of("u", 20), "tail-write-2").status, 202);
  TailClient resumed(servers_[2]->port(), key_, "fields=id", last);
  ASSERT_EQ(resumed.status(), 200) << resumed.error_body();
  resumed.read_messages(20, 60s);
  EXPECT_EQ(ids_of_messages(resumed), written_ids("u", 20));
}

TEST_F(SharedLogTest, ReadsGoOnWhilePostgresIsDown) {
  ServerProcess& server = add_server("h1");
  const auto accepted = client(0).ingest(batch_of("d", 10), "down-write-1");
  ASSERT_EQ(accepted.status, 202);
  const std::string receipt(accepted.json().at("receipt_id").as_string());
  ASSERT_EQ(client(0).wait_final(receipt).at("status"), "verified");
  const Contents before = contents(0);

  postgres_.crash();
  // Reads are the copy's: the same answers, and the server stays ready.
  EXPECT_EQ(contents(0), before);
  HttpsClient admin(server.admin_port(), false);
  EXPECT_EQ(admin.request("GET", "/readyz").status, 200);
  // Whether every server has the write cannot be known now.
  EXPECT_EQ(client(0).receipt(receipt).json().at("status"), "projecting");
  const auto refused = client(0).ingest(batch_of("e", 10), "down-write-2");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.header("Retry-After"), "1");

  postgres_.start();
  EXPECT_EQ(client(0).wait_final(receipt).at("status"), "verified");
  std::optional<HttpResponse> retried;
  for (int attempt = 0; attempt < 100; ++attempt) {
    retried = client(0).ingest(batch_of("e", 10), "down-write-2");
    if (retried->status == 202) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(retried->status, 202);
}

TEST_F(SharedLogTest, OneKeySentToTwoServersAtOnceMakesOneWrite) {
  add_server("h1");
  add_server("h2");
  const auto batch = batch_of("k", 50);
  std::mutex mutex;
  std::vector<HttpResponse> answers;
  std::latch start(16);
  std::vector<std::thread> clients;
  clients.reserve(16);
  for (int c = 0; c < 16; ++c) {
    clients.emplace_back([&, c] {
      auto api = client(static_cast<std::size_t>(c % 2));
      start.arrive_and_wait();
      auto answer = api.ingest(batch, "same-key-everywhere");
      const std::lock_guard lock(mutex);
      answers.push_back(std::move(answer));
    });
  }
  for (auto& thread : clients)
    thread.join();
  std::string body;
  int conflicts = 0;
  for (const auto& answer : answers) {
    if (answer.status == 409) {  // in flight on one server or the other
      ++conflicts;
      EXPECT_EQ(answer.header("Retry-After"), "1");
      continue;
    }
    ASSERT_EQ(answer.status, 202) << answer.body;
    if (body.empty()) body = answer.body;
    EXPECT_EQ(answer.body, body);  // the one write's answer, replayed
  }
  EXPECT_FALSE(body.empty());
  EXPECT_EQ(postgres_.sql("SELECT count(*) FROM eventsvc_log"), "1");
  std::printf("16 requests with one key on two servers: %d answered 409\n", conflicts);
}

TEST_F(SharedLogTest, NothingAcknowledgedIsLostWhenAServerIsKilledMidRun) {
  for (const char* host : {"h1", "h2", "h3"})
    add_server(host);
  constexpr int kClients = 6;
  constexpr int kBatches = 40;
  constexpr int kEvents = 4;
  Acknowledged acknowledged;
  std::atomic<int> retried{0};
  std::atomic<bool> killed{false};
  std::vector<std::thread> clients;
  clients.reserve(kClients);
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      std::size_t server = static_cast<std::size_t>(c % 3);
      for (int b = 0; b < kBatches; ++b) {
        const std::string name = "c" + std::to_string(c) + "b" + std::to_string(b);
        const auto batch = batch_of(name, kEvents);
        const std::string key = "run-" + name;
        for (int attempt = 0; attempt < 50; ++attempt) {
          std::optional<HttpResponse> answer;
          try {
            answer = client(server).ingest(batch, key);
          } catch (const std::exception&) {
            // In doubt: the server went away. The same key, on the next server.
          }
          if (answer && answer->status == 202) {
            acknowledged.add(*answer, name, kEvents);
            break;
          }
          ++retried;
          server = (server + 1) % 3;
          if (killed && server == 2) server = 0;
          std::this_thread::sleep_for(20ms);
        }
      }
    });
  }
  std::this_thread::sleep_for(200ms);
  servers_[2]->kill();
  killed = true;
  const std::size_t before_kill = acknowledged.writes();
  for (auto& thread : clients)
    thread.join();

  const auto& receipts = acknowledged.receipts;
  ASSERT_EQ(acknowledged.ids.size(), static_cast<std::size_t>(kClients * kBatches * kEvents));
  // Killed mid-run: writes were acknowledged before and after.
  EXPECT_GT(before_kill, 0U);
  EXPECT_LT(before_kill, receipts.size());
  // Every receipt ends verified, whichever live server is asked; the dead one holds nothing back
  // once it has not been seen for host_timeout_s.
  for (std::size_t i = 0; i < receipts.size(); ++i)
    EXPECT_EQ(client(i % 2).wait_final(receipts[i]).at("status"), "verified");
  const Contents seen = contents(0);
  EXPECT_EQ(seen.current, static_cast<std::int64_t>(acknowledged.ids.size()));
  EXPECT_EQ(seen.versions, seen.current);  // each exactly once
  EXPECT_EQ(contents(1), seen);
  std::printf("%zu writes acknowledged, %d attempts retried after the kill\n", receipts.size(),
              retried.load());

  // The killed server comes back and catches up on what it missed.
  servers_[2]->start();
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (contents(2) != seen && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  EXPECT_EQ(contents(2), seen);
}

TEST_F(SharedLogTest, AServerThatStartsEmptyCatchesUpBeforeItIsReady) {
  add_server("h1");
  std::vector<std::string> receipts;
  for (int b = 0; b < 30; ++b) {
    const auto answer =
        client(0).ingest(batch_of("e" + std::to_string(b), 50), "fill-batch-" + std::to_string(b));
    ASSERT_EQ(answer.status, 202) << answer.body;
    receipts.emplace_back(answer.json().at("receipt_id").as_string());
  }
  for (const auto& receipt : receipts)
    ASSERT_EQ(client(0).wait_final(receipt).at("status"), "verified");
  const Contents written = contents(0);
  EXPECT_EQ(written.current, 1500);
  ServerProcess& late = add_server("h2");
  HttpsClient admin(late.admin_port(), false);
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  HttpResponse ready;
  while (std::chrono::steady_clock::now() < deadline) {
    ready = admin.request("GET", "/readyz");
    if (ready.status == 200) break;
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(ready.status, 200) << ready.body;
  EXPECT_EQ(ready.json().at("checks").at("log").at("ok"), true);
  EXPECT_EQ(contents(1), written);
}

// A counter of a server's /metrics, summed over its label sets; -1 when absent.
double metric_of(const ServerProcess& server, const std::string& name) {
  const auto page = HttpsClient(server.admin_port(), false).request("GET", "/metrics").body;
  double total = -1;
  std::size_t at = 0;
  while ((at = page.find("\n" + name, at)) != std::string::npos) {
    at += name.size() + 1;
    if (page[at] != '{' && page[at] != ' ') continue;
    const auto space = page.find(' ', at);
    total = std::max(total, 0.0) + std::stod(page.substr(space + 1, page.find('\n', space)));
  }
  return total;
}

// An erasure through one server is carried out on every server; each purges its own copy, and the
// shared log's entry of the write keeps its other event but none of the erased one; the erased
// event, sent again, is stored again.
TEST_F(SharedLogTest, AnErasureThroughOneServerIsHiddenAndPurgedOnEveryServerAndInTheLog) {
  for (const char* host : {"h1", "h2"})
    add_server(host);
  const std::string eraser =
      servers_[0]->create_key("acme", "live", "events:read,events:write,events:erase");
  const std::string marker = "zqxclustermarker";
  const auto secret = make_event("secret", "note", now_ms() - 2000,
                                 json::object{{"text", marker + " of one person"}});
  const auto batch = make_batch(
      "notes", json::array{secret, make_event("kept", "note", now_ms() - 1000,
                                              json::object{{"text", "nothing personal"}})});
  const std::string receipt = client(0).ingest_verified(batch, "cluster-erase-write");
  const std::string in_log =
      "SELECT count(*) FROM eventsvc_log WHERE position('" + marker + "'::bytea in write) > 0";
  EXPECT_EQ(postgres_.sql(in_log), "1");

  ApiClient through(servers_[1]->port(), eraser);
  const auto accepted =
      through.erase(json::object{{"ids", json::array{"secret"}}}, "cluster-erase");
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  const std::string erasure(accepted.json().at("erasure_id").as_string());
  for (std::size_t server = 0; server < servers_.size(); ++server) {
    ApiClient api(servers_[server]->port(), eraser);
    json::object state = api.wait_erased(erasure);
    for (int attempt = 0; attempt < 600 && state.at("status") != "purged"; ++attempt) {
      std::this_thread::sleep_for(100ms);
      state = api.erasure(erasure).json().as_object();
    }
    EXPECT_EQ(state.at("status"), "purged")
        << "server " << server << ": " << json::serialize(state);
    EXPECT_EQ(state.at("erased_versions"), 1) << "server " << server;
    const auto found = api.query({{"where", json::object{{"id", "secret"}}}});
    ASSERT_EQ(found.status, 200) << found.body;
    EXPECT_EQ(found.json().at("count"), 0) << "server " << server;
    EXPECT_EQ(files_holding(servers_[server]->data_dir(), marker), std::vector<std::string>{})
        << "server " << server;
  }
  EXPECT_EQ(postgres_.sql(in_log), "0");
  EXPECT_EQ(postgres_.sql("SELECT count(*) FROM eventsvc_log WHERE "
                          "position('nothing personal'::bytea in write) > 0"),
            "1");
  EXPECT_EQ(contents(0).ids, (std::vector<std::string>{"kept"}));
  EXPECT_EQ(contents(1).ids, (std::vector<std::string>{"kept"}));
  // A server that copies the log only now never sees the erased event, and verifies the write's
  // other event: the entry's receipt was scrubbed with it.
  add_server("h3");
  std::vector<std::string> copied;
  for (int attempt = 0; attempt < 300 && copied.empty(); ++attempt) {  // until it has copied it
    if (attempt > 0) std::this_thread::sleep_for(100ms);
    copied = contents(2).ids;
  }
  EXPECT_EQ(copied, (std::vector<std::string>{"kept"}));
  const auto verdict = client(2).wait_final(receipt);
  EXPECT_EQ(verdict.at("status"), "verified") << json::serialize(verdict);

  // Erasure is not suppression: sent again, it is stored again, and every server has it.
  const auto again =
      client(1).ingest(make_batch("notes", json::array{secret}), "cluster-erase-again");
  ASSERT_EQ(again.status, 202) << again.body;
  EXPECT_EQ(again.json().at("accepted"), 1);
  EXPECT_EQ(
      client(0).wait_final(std::string(again.json().at("receipt_id").as_string())).at("status"),
      "verified");
  EXPECT_EQ(contents(0).ids, (std::vector<std::string>{"kept", "secret"}));
}

TEST_F(SharedLogTest, VerifiedEntriesAreTrimmedAndAServerJoinsFromABackupReadingOnlyWhatFollows) {
  keep_entries_s_ = "1";
  add_server("h1");
  add_server("h2");
  std::vector<std::string> receipts;
  for (int b = 0; b < 5; ++b) {
    const auto answer =
        client(static_cast<std::size_t>(b % 2))
            .ingest(batch_of("t" + std::to_string(b), 20), "trim-batch-" + std::to_string(b));
    ASSERT_EQ(answer.status, 202) << answer.body;
    receipts.emplace_back(answer.json().at("receipt_id").as_string());
  }
  for (const auto& receipt : receipts)
    ASSERT_EQ(client(0).wait_final(receipt).at("status"), "verified");

  // Both servers verified them and they are older than keep_entries_s: they go.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (postgres_.sql("SELECT count(*) FROM eventsvc_log") != "0" &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  ASSERT_EQ(postgres_.sql("SELECT count(*) FROM eventsvc_log"), "0");
  EXPECT_EQ(postgres_.sql("SELECT count(*) FROM eventsvc_log_trimmed"), "1");
  EXPECT_EQ(metric_of(*servers_[0], "eventsvc_log_trimmed_total") +
                metric_of(*servers_[1], "eventsvc_log_trimmed_total"),
            5);
  const Contents trimmed = contents(0);
  EXPECT_EQ(trimmed.current, 100);

  // A backup of h1; then h1 alone, keeping what it writes.
  const auto backup = servers_[0]->dir() / "backup";
  const auto taken = servers_[0]->cli({"backup", "--to", backup.string()});
  ASSERT_EQ(taken.exit_code, 0) << taken.err;
  servers_[1]->stop();
  servers_[0]->stop();
  keep_entries_s_ = "86400";
  std::ofstream(servers_[0]->config_path()) << config_of("h1");
  servers_[0]->start();
  for (int b = 5; b < 8; ++b) {
    const auto answer =
        client(0).ingest(batch_of("t" + std::to_string(b), 20), "trim-batch-" + std::to_string(b));
    ASSERT_EQ(answer.status, 202) << answer.body;
    EXPECT_EQ(
        client(0).wait_final(std::string(answer.json().at("receipt_id").as_string())).at("status"),
        "verified");
  }
  const Contents written = contents(0);
  EXPECT_EQ(written.current, 160);

  // A server restored from the backup reads the three entries after it, and nothing before.
  ServerProcess& joined = add_server("h3", false);
  const auto restored = joined.cli({"restore", "--from", backup.string()});
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  joined.start();
  const auto joined_by = std::chrono::steady_clock::now() + 30s;
  while (contents(2) != written && std::chrono::steady_clock::now() < joined_by)
    std::this_thread::sleep_for(50ms);
  EXPECT_EQ(contents(2), written);
  EXPECT_EQ(metric_of(joined, "eventsvc_storage_log_entries_copied_total"), 3);

  // A server that starts empty cannot catch up from a trimmed log: it says so, and is not ready.
  ServerProcess& empty = add_server("h4", false);
  empty.start();
  HttpsClient admin(empty.admin_port(), false);
  const auto refused_by = std::chrono::steady_clock::now() + 30s;
  HttpResponse ready;
  while (std::chrono::steady_clock::now() < refused_by) {
    ready = admin.request("GET", "/readyz");
    if (ready.body.find("trimmed") != std::string::npos) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(ready.status, 503);
  EXPECT_NE(ready.body.find("this server's copy ends before entries trimmed from the shared log"),
            std::string::npos)
      << ready.body;
  // It holds no receipt back meanwhile: a write through h1 is verified.
  const auto after = client(0).ingest(batch_of("late", 1), "trim-batch-late");
  ASSERT_EQ(after.status, 202) << after.body;
  EXPECT_EQ(
      client(0).wait_final(std::string(after.json().at("receipt_id").as_string())).at("status"),
      "verified");
}

TEST_F(SharedLogTest, NothingAcknowledgedIsLostWhenThePrimaryDiesAndTheStandbyIsPromoted) {
  PostgresProcess standby(PostgresProcess::StandbyOf{postgres_});
  postgres_.require_synchronous_standby();
  // libpq tries the hosts in turn and keeps the one that takes writes.
  conninfo_ = "host=127.0.0.1,127.0.0.1 port=" + std::to_string(postgres_.port()) + "," +
              std::to_string(standby.port()) +
              " user=eventsvc dbname=postgres connect_timeout=2 target_session_attrs=read-write";
  add_server("h1");
  add_server("h2");

  constexpr int kClients = 4;
  constexpr int kBatches = 40;
  constexpr int kEvents = 5;
  Acknowledged acknowledged;
  std::atomic<int> unavailable{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> clients;
  clients.reserve(kClients);
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      const auto server = static_cast<std::size_t>(c % 2);
      for (int b = 0; b < kBatches; ++b) {
        const std::string name = "f" + std::to_string(c) + "b" + std::to_string(b);
        const auto batch = batch_of(name, kEvents);
        for (int attempt = 0; attempt < 600; ++attempt) {
          const auto answer = client(server).ingest(batch, "failover-" + name);
          if (answer.status == 202) {
            acknowledged.add(answer, name, kEvents);
            break;
          }
          // While there is no primary: 503 with Retry-After, the same key again.
          if (answer.status == 503 && answer.header("Retry-After") == "1") {
            ++unavailable;
          } else {
            ++wrong;
            ADD_FAILURE() << answer.status << " " << answer.body;
          }
          std::this_thread::sleep_for(50ms);
        }
      }
    });
  }
  std::this_thread::sleep_for(300ms);
  postgres_.crash();
  std::this_thread::sleep_for(500ms);  // writes meanwhile have nowhere to go
  standby.promote();
  for (auto& thread : clients)
    thread.join();

  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(unavailable.load(), 0);  // the switch was seen
  const auto& receipts = acknowledged.receipts;
  ASSERT_EQ(acknowledged.ids.size(), static_cast<std::size_t>(kClients * kBatches * kEvents));
  // Each server follows the log at its own pace: both have verified every receipt before their
  // contents are compared.
  for (std::size_t server = 0; server < 2; ++server) {
    for (const auto& receipt : receipts)
      EXPECT_EQ(client(server).wait_final(receipt, 60s).at("status"), "verified") << server;
  }
  const Contents seen = contents(0);
  EXPECT_EQ(seen.current, static_cast<std::int64_t>(acknowledged.ids.size()));
  EXPECT_EQ(seen.versions, seen.current);
  EXPECT_EQ(contents(1), seen);
  // Every acknowledged write is on the promoted standby, the only copy left.
  EXPECT_EQ(standby.sql("SELECT count(*) FROM eventsvc_log"), std::to_string(receipts.size()));
  std::printf("%zu writes acknowledged, %d answered 503 during the switch\n", receipts.size(),
              unavailable.load());
}

}  // namespace
}  // namespace eventsvc::testing
