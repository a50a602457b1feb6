#include "documents_mode.hpp"

#include <gtest/gtest.h>

#include "eventsvc/toolkit/context_pack.hpp"
#include "eventsvc/toolkit/record_json.hpp"
#include "support/context_testing.hpp"

namespace eventsvc::plugins::context {
namespace {

using testing::kT0;
using testing::RecordSet;


sdk::ContextRequest documents(std::size_t budget) {
  sdk::ContextRequest request;
  request.mode = "documents";
  request.token_budget = budget;
  return request;
}

TEST(DocumentsMode, WholeRecordsInOrderUntilTheBudget) {
  RecordSet set;
  for (int i = 0; i < 40; ++i) {
    set.add("r" + std::to_string(i), kT0 + i,
            sdk::json::object{{"text", std::string(200, 'x')}, {"n", i}});
  }
  const DocumentsMode mode{{}};
  auto input = set.input(documents(1000), kT0);
  input.results.resize(30);  // the answer shows 30 of the 40 matches
  const auto output = mode.build(input);
  const auto& context = output.context;
  EXPECT_EQ(context.at("schema_version"), "1.1");
  EXPECT_EQ(context.at("mode"), "documents");
  EXPECT_EQ(context.at("token_budget"), 1000);
  const auto& docs = context.at("documents").as_array();
  ASSERT_GT(docs.size(), 0U);
  ASSERT_LT(docs.size(), 30U);
  for (std::size_t i = 0; i < docs.size(); ++i)
    EXPECT_EQ(docs[i].at("id").as_string(), "r" + std::to_string(i));
  EXPECT_EQ(context.at("omitted").to_number<std::size_t>(), 30 - docs.size());
  const auto tokens = context.at("tokens_used").to_number<std::size_t>();
  EXPECT_EQ(tokens, toolkit::estimate_tokens(context));
  EXPECT_LE(tokens, 1000U);
  // One more document would not have fit.
  EXPECT_GT(tokens + toolkit::estimate_tokens(toolkit::record_to_json(*input.results[docs.size()])),
            1000U - 8);
  EXPECT_EQ(context.at("proof").at("complete"), false);
  EXPECT_EQ(context.at("proof").at("event_ids").as_array().size(), docs.size());
}

TEST(DocumentsMode, EverythingFitsUnderALargeBudget) {
  RecordSet set;
  set.add("a", kT0, 1);
  set.add("b", kT0 + 1, 2);
  const DocumentsMode mode{{}};
  auto input = set.input(documents(100000), kT0);
  const auto context = mode.build(input).context;
  EXPECT_EQ(context.at("documents").as_array().size(), 2U);
  EXPECT_EQ(context.at("omitted"), 0);
  EXPECT_EQ(context.at("proof"),
            (sdk::json::object{{"complete", true}, {"event_ids", sdk::json::array{"a", "b"}}}));
  input.scan_complete = false;
  EXPECT_EQ(mode.build(input).context.at("proof").at("complete"), false);
}

TEST(DocumentsMode, TheSmallestBudgetHoldsNoLargeRecord) {
  RecordSet set;
  set.add("huge", kT0, sdk::json::object{{"text", std::string(5000, 'y')}});
  const DocumentsMode mode{{}};
  const auto context = mode.build(set.input(documents(256), kT0)).context;
  EXPECT_TRUE(context.at("documents").as_array().empty());
  EXPECT_EQ(context.at("omitted"), 1);
  EXPECT_LE(context.at("tokens_used").to_number<std::size_t>(), 256U);
}

}  // namespace
}  // namespace eventsvc::plugins::context
