// Column chunks survive SIGKILL around merges: one-write projection rounds leave many small chunks,
// which the projector merges whenever it is idle (between the writes and after them); the server
// is killed at random moments in that phase and restarted, and afterwards aggregations over
// history and current state, read from the columns, still count every acknowledged event exactly
// once. Each merge is one atomic batch; the property test checks the merge logic itself.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <thread>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

constexpr int kWrites = 120;
constexpr int kEventsPerWrite = 40;
constexpr int kIds = 300;

TEST(Crash, ColumnChunksSurviveSigkillDuringMerges) {
  ServerProcess server(test_config());
  server.start();
  const std::string key = server.create_key("merge", "test");
  std::mt19937 random(20261123);

  // One write at a time, waiting for each to be verified: one small chunk per round.
  const std::int64_t start = now_ms() - 3600000;
  std::int64_t history_count = 0;
  double history_sum = 0;
  std::map<std::string, std::pair<std::int64_t, int>> latest;  // id -> (occurred_at, v)
  for (int w = 0; w < kWrites; ++w) {
    json::array events;
    for (int e = 0; e < kEventsPerWrite; ++e) {
      const int n = w * kEventsPerWrite + e;
      const std::string id = "m-" + std::to_string(n % kIds);
      const std::int64_t at = start + n;
      const int v = static_cast<int>(random() % 1000);
      events.push_back(make_event(id, "t", at, json::object{{"v", v}, {"g", n % 3}}));
      ++history_count;
      history_sum += v;
      latest[id] = {at, v};
    }
    ApiClient(server.port(), key)
        .ingest_verified(make_batch("merge", events), "merge-write-" + std::to_string(w));
  }

  // The projector merges small chunks while idle: kill it at random moments in this phase.
  for (int kill = 0; kill < 6; ++kill) {
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 120));
    server.kill();
    server.start();
  }

  double current_sum = 0;
  for (const auto& [id, version] : latest)
    current_sum += version.second;
  ApiClient api(server.port(), key);
  auto aggregate = [&](const char* source) {
    const auto response = api.analyze(
        json::object{{"source", source},
                     {"where", json::object{{"timestamp", json::object{{"gte", "now-2h"}}}}},
                     {"include_results", false},
                     {"group_by", json::array{"payload.g"}},
                     {"aggregations",
                      json::object{{"n", json::object{{"op", "count"}}},
                                   {"v", json::object{{"op", "sum"}, {"field", "payload.v"}}}}}});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.json().as_object();
  };
  const auto history = aggregate("history");
  EXPECT_EQ(history.at("aggregations").at("n").at("value").to_number<std::int64_t>(),
            history_count);
  EXPECT_EQ(history.at("aggregations").at("v").at("value").to_number<double>(), history_sum);
  std::int64_t grouped = 0;
  for (const auto& group : history.at("groups").as_array())
    grouped += group.at("count").to_number<std::int64_t>();
  EXPECT_EQ(grouped, history_count);
  const auto current = aggregate("current");
  EXPECT_EQ(current.at("aggregations").at("n").at("value").to_number<std::int64_t>(), kIds);
  EXPECT_EQ(current.at("aggregations").at("v").at("value").to_number<double>(), current_sum);
  EXPECT_EQ(current.at("complete"), true);
}

}  // namespace
}  // namespace eventsvc::testing
