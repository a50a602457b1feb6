#include "jsonl_audit.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <regex>

#include "support/plugin_context.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::audit {
namespace {

const sdk::Principal kPrincipal{
    {"acme", sdk::Environment::live}, {"events:read"}, "default", "abcd1234"};

TEST(JsonlAudit, SampledRequestsAreWrittenPrivately) {
  testing::TempDir dir;
  JsonlAudit audit{
      testing::plugin_context(sdk::manifest_of<JsonlAudit>(), {{"sample_rate", 1.0}}, dir.path())};
  const sdk::json::value request = sdk::json::object{{"text", "x"}};
  const sdk::json::object context{{"mode", "decision"}};
  const auto id = audit.record({kPrincipal, "analyze", request, context, 1795336200000, false});
  ASSERT_TRUE(id);
  EXPECT_TRUE(std::regex_match(*id, std::regex("^trc_[0-9a-f]{16}$")));
  const auto file = dir.path() / "traces" / "2026-11-22.jsonl";
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  const auto trace = sdk::parse_json(line);
  EXPECT_EQ(trace.at("trace_id").as_string(), *id);
  EXPECT_EQ(trace.at("workspace"), "acme");
  EXPECT_EQ(trace.at("env"), "live");
  EXPECT_EQ(trace.at("context").at("mode"), "decision");
  EXPECT_EQ(trace.at("request").at("text"), "x");
}

TEST(JsonlAudit, SampleRateZeroTracesNothing) {
  testing::TempDir dir;
  JsonlAudit audit{
      testing::plugin_context(sdk::manifest_of<JsonlAudit>(), {{"sample_rate", 0}}, dir.path())};
  const sdk::json::value request = sdk::json::object{};
  for (int i = 0; i < 100; ++i)
    EXPECT_FALSE(audit.record({kPrincipal, "analyze", request, {}, 0, false}));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() / "traces"));
}

TEST(JsonlAudit, AnErasureIsWrittenWhateverTheSampleRate) {
  testing::TempDir dir;
  JsonlAudit audit{
      testing::plugin_context(sdk::manifest_of<JsonlAudit>(), {{"sample_rate", 0}}, dir.path())};
  const sdk::json::value request = sdk::json::object{{"ids", sdk::json::array{"e-1"}}};
  const sdk::json::object context{{"erasure_id", "era_00000000000000aa"}};
  ASSERT_TRUE(audit.record({kPrincipal, "erasure", request, context, 1795336200000, true}));
  std::ifstream in(dir.path() / "traces" / "2026-11-22.jsonl");
  std::string line;
  std::getline(in, line);
  const auto trace = sdk::parse_json(line);
  EXPECT_EQ(trace.at("operation"), "erasure");
  EXPECT_EQ(trace.at("key_id"), "abcd1234");
  EXPECT_EQ(trace.at("request").at("ids").at(0), "e-1");
  EXPECT_EQ(trace.at("context").at("erasure_id"), "era_00000000000000aa");
}

TEST(JsonlAudit, RateIsAShare) {
  testing::TempDir dir;
  JsonlAudit audit{
      testing::plugin_context(sdk::manifest_of<JsonlAudit>(), {{"sample_rate", 0.5}}, dir.path())};
  const sdk::json::value request = sdk::json::object{};
  int sampled = 0;
  for (int i = 0; i < 2000; ++i)
    sampled += audit.record({kPrincipal, "analyze", request, {}, 0, false}) ? 1 : 0;
  EXPECT_GT(sampled, 800);
  EXPECT_LT(sampled, 1200);
}

}  // namespace
}  // namespace eventsvc::plugins::audit
