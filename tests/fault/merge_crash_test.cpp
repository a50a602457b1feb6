// Column chunks survive SIGKILL in the middle of a merge. One-write projection rounds, with merges
// switched off by config, leave 1,000 small chunks. The server is then restarted with merges on,
// and each time it logs that a merge has begun, it is killed before it logs that the merge is done,
// several times over (each restart takes up the same merge again). Afterwards aggregations over
// history and current state, read from the columns, still count every acknowledged event exactly
// once, before and after the merges finally complete.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

constexpr int kWrites = 1000;
constexpr int kEventsPerWrite = 4;
constexpr int kIds = 300;
constexpr int kKillsInsideMerges = 3;

// The config with the storage plugin's projector section set to `projector` (YAML flow map).
std::string config_with_projector(const std::string& projector) {
  TestConfig config;
  config.server += "  log_level: debug\n";  // merges are logged at debug level
  config.plugins = with_storage_config(default_plugins(), "      projector: " + projector + "\n");
  return config.yaml();
}

struct Expected {
  std::int64_t history_count = 0;
  double history_sum = 0;
  std::map<std::string, int> latest;  // id -> v of its newest version
};

void expect_exact_aggregations(ServerProcess& server, const std::string& key,
                               const Expected& expected) {
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
            expected.history_count);
  EXPECT_EQ(history.at("aggregations").at("v").at("value").to_number<double>(),
            expected.history_sum);
  std::int64_t grouped = 0;
  for (const auto& group : history.at("groups").as_array())
    grouped += group.at("count").to_number<std::int64_t>();
  EXPECT_EQ(grouped, expected.history_count);

  double current_sum = 0;
  for (const auto& [id, v] : expected.latest)
    current_sum += v;
  const auto current = aggregate("current");
  EXPECT_EQ(current.at("aggregations").at("n").at("value").to_number<std::int64_t>(), kIds);
  EXPECT_EQ(current.at("aggregations").at("v").at("value").to_number<double>(), current_sum);
  EXPECT_EQ(current.at("complete"), true);
}

TEST(Crash, ColumnChunksSurviveSigkillInsideMerges) {
  // No chunk is small and every chunk is final: nothing merges while the chunks are written.
  ServerProcess server(
      config_with_projector("{batch_writes: 1, merge_small_rows: 1, merge_final_rows: 1}"));
  server.start();
  const std::string key = server.create_key("merge", "test");
  std::mt19937 random(20261123);

  // One write per projection round: one small chunk per write. The last write's receipt is final
  // once every write before it is projected.
  const std::int64_t start = now_ms() - 3600000;
  Expected expected;
  ApiClient writer(server.port(), key);
  std::string last_receipt;
  for (int w = 0; w < kWrites; ++w) {
    json::array events;
    for (int e = 0; e < kEventsPerWrite; ++e) {
      const int n = w * kEventsPerWrite + e;
      const std::string id = "m-" + std::to_string(n % kIds);
      const int v = static_cast<int>(random() % 1000);
      events.push_back(make_event(id, "t", start + n, json::object{{"v", v}, {"g", n % 3}}));
      ++expected.history_count;
      expected.history_sum += v;
      expected.latest[id] = v;
    }
    const auto response =
        writer.ingest(make_batch("merge", events), "merge-write-" + std::to_string(w));
    ASSERT_EQ(response.status, 202) << response.body;
    last_receipt = std::string(response.json().at("receipt_id").as_string());
  }
  EXPECT_EQ(writer.wait_final(last_receipt, std::chrono::seconds(60)).at("status"), "verified");
  expect_exact_aggregations(server, key, expected);
  ASSERT_EQ(server.stop(), 0);

  // Merges on: the projector takes up the run of small chunks as soon as it starts. Kill it once
  // the merge has begun and before it is done; a kill that lands after it does not count.
  std::ofstream(server.config_path()) << config_with_projector("{batch_writes: 1}");
  int inside = 0;
  for (int attempt = 0; attempt < 20 && inside < kKillsInsideMerges; ++attempt) {
    const std::size_t from = server.log_size();
    server.launch();
    const bool merging = server.await_log("\"merging ", from, std::chrono::milliseconds(30000));
    server.kill();
    if (!merging) break;  // none left: the last kill came after the merges
    const std::string since = server.log().substr(from);
    const auto began = since.rfind("\"merging ");
    const auto done = since.rfind("\"merged ");
    if (done == std::string::npos || done < began) ++inside;
  }
  EXPECT_EQ(inside, kKillsInsideMerges) << server.log();

  // Restarted after the kills: nothing lost, nothing counted twice, whether or not the merges
  // are done; and the same once they are.
  const std::size_t from = server.log_size();
  server.start();
  expect_exact_aggregations(server, key, expected);
  ASSERT_TRUE(server.await_log("\"merged ", from, std::chrono::milliseconds(30000)));
  expect_exact_aggregations(server, key, expected);
}

}  // namespace
}  // namespace eventsvc::testing
