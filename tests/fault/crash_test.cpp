// Nothing acknowledged is ever lost (DESIGN §7): several clients ingest concurrently while the
// server is killed with SIGKILL at random moments and restarted. Afterwards every write that got a
// 202 is in history and current, its receipt reaches a final state, its idempotency key still
// replays the same bytes, and no write is half visible.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

struct Attempt {
  std::string key;
  std::vector<std::string> ids;
  std::string receipt_body;  // set when acknowledged with 202
};

constexpr int kClients = 4;
constexpr int kRounds = 5;
constexpr int kEventsPerWrite = 5;

// The records with these ids in a source (ids at most 1000).
std::map<std::string, int> present(ApiClient& api, const std::vector<std::string>& ids,
                                   const std::string& source) {
  json::array list;
  for (const auto& id : ids)
    list.emplace_back(id);
  json::object where{{"id", json::object{{"in", list}}}};
  if (source == "history") where["timestamp"] = json::object{{"gte", "now-1h"}};
  const auto response =
      api.query(json::object{{"source", source}, {"where", where}, {"limit", 1000}});
  EXPECT_EQ(response.status, 200) << response.body;
  std::map<std::string, int> counts;
  if (response.status != 200) return counts;
  for (const auto& id : ids_of(response.json()))
    ++counts[id];
  return counts;
}

TEST(Crash, AcknowledgedWritesSurviveSigkill) {
  ServerProcess server(test_config());
  server.start();
  const std::string key = server.create_key("crash", "test");
  std::mt19937 random(20261122);
  std::mutex mutex;
  std::vector<Attempt> attempts;
  int write_number = 0;

  for (int round = 0; round < kRounds; ++round) {
    std::atomic<bool> stop{false};
    std::vector<std::thread> clients;
    const int port = server.port();
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&, c] {
        ApiClient api(port, key);
        while (!stop) {
          Attempt attempt;
          json::array events;
          {
            const std::lock_guard lock(mutex);
            attempt.key = "crash-write-" + std::to_string(write_number++);
          }
          for (int e = 0; e < kEventsPerWrite; ++e) {
            attempt.ids.push_back(attempt.key + "-e" + std::to_string(e));
            events.push_back(make_event(attempt.ids.back(), "t", now_ms(),
                                        json::object{{"client", c}, {"n", e}}));
          }
          try {
            const auto response = api.ingest(make_batch("crash", events), attempt.key);
            if (response.status == 202) attempt.receipt_body = response.body;
          } catch (const std::exception&) {
            // The server died mid-request: not acknowledged.
          }
          const std::lock_guard lock(mutex);
          attempts.push_back(std::move(attempt));
          if (attempts.back().receipt_body.empty()) return;  // connection gone: next round
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + random() % 600));
    server.kill();
    stop = true;
    for (auto& client : clients)
      client.join();
    server.start();
  }

  ApiClient api(server.port(), key);
  std::size_t acknowledged = 0;
  std::size_t unacknowledged_present = 0;
  for (std::size_t begin = 0; begin < attempts.size(); begin += 150) {
    const std::size_t end = std::min(attempts.size(), begin + 150);
    // Let every receipt in this slice reach its final state first.
    for (std::size_t i = begin; i < end; ++i) {
      if (attempts[i].receipt_body.empty()) continue;
      const auto receipt = json::parse(attempts[i].receipt_body);
      EXPECT_EQ(api.wait_final(std::string(receipt.at("receipt_id").as_string())).at("status"),
                "verified");
    }
    std::vector<std::string> ids;
    for (std::size_t i = begin; i < end; ++i)
      ids.insert(ids.end(), attempts[i].ids.begin(), attempts[i].ids.end());
    const auto current = present(api, ids, "current");
    const auto history = present(api, ids, "history");
    for (std::size_t i = begin; i < end; ++i) {
      const Attempt& attempt = attempts[i];
      std::size_t in_current = 0;
      std::size_t in_history = 0;
      for (const auto& id : attempt.ids) {
        in_current += current.contains(id) ? 1 : 0;
        in_history += history.contains(id) ? 1 : 0;
        EXPECT_LE(history.contains(id) ? history.at(id) : 0, 1) << id;
      }
      if (!attempt.receipt_body.empty()) {
        ++acknowledged;
        EXPECT_EQ(in_current, attempt.ids.size()) << attempt.key;
        EXPECT_EQ(in_history, attempt.ids.size()) << attempt.key;
        const auto replay =
            api.ingest(json::object{{"stream", "x"},
                                    {"events", json::array{make_event("r", "t", now_ms(), 1)}}},
                       attempt.key);
        EXPECT_EQ(replay.body, attempt.receipt_body) << attempt.key;
        EXPECT_EQ(replay.header("Idempotent-Replayed"), "true");
      } else {
        // Never half visible: all of a write's events, or none.
        EXPECT_TRUE(in_current == 0 || in_current == attempt.ids.size()) << attempt.key;
        EXPECT_EQ(in_current, in_history) << attempt.key;
        unacknowledged_present += in_current > 0 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(acknowledged, 20U);
  std::printf("writes attempted %zu, acknowledged %zu, unacknowledged but durable %zu\n",
              attempts.size(), acknowledged, unacknowledged_present);
}

}  // namespace
}  // namespace eventsvc::testing
