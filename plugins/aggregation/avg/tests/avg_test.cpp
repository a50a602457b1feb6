#include "avg.hpp"

#include "support/aggregation_testing.hpp"

namespace eventsvc::plugins::aggregation {
namespace {

using namespace eventsvc::testing;

TEST(Avg, MeanOfTheNumbers) {
  const Avg op{{}};
  const auto result = aggregate(op, spec_of("avg"), mixed_samples());
  EXPECT_DOUBLE_EQ(result.at("value").as_double(), 18.0 / 5);
  EXPECT_EQ(result.at("count"), 7);
  EXPECT_EQ(result.at("skipped"), 2);
  EXPECT_TRUE(aggregate(op, spec_of("avg"), {{sdk::json::value("x"), 0}}).at("value").is_null());
}

TEST(Avg, MergeEqualsOneState) {
  const Avg op{{}};
  expect_merge_equals_single(op, spec_of("avg"), mixed_samples());
}

TEST(Avg, StatesSurviveSerialisation) {
  const Avg op{{}};
  expect_states_survive_serialisation(op, spec_of("avg"), mixed_samples());
}

TEST(Avg, SpansEqualRecords) {
  const Avg op{{}};
  expect_spans_equal_records(op, spec_of("avg"), mixed_samples());
}

}  // namespace
}  // namespace eventsvc::plugins::aggregation
