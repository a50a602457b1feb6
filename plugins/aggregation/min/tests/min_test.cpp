#include "min.hpp"

#include "support/aggregation_testing.hpp"

namespace eventsvc::plugins::aggregation {
namespace {

using namespace eventsvc::testing;

TEST(Min, SmallestNumber) {
  const Min op{{}};
  const auto result = aggregate(op, spec_of("min"), mixed_samples());
  EXPECT_EQ(result.at("value"), -1.0);
  EXPECT_EQ(result.at("skipped"), 2);
  EXPECT_TRUE(aggregate(op, spec_of("min"), {}).at("value").is_null());
}

TEST(Min, MergeEqualsOneState) {
  const Min op{{}};
  expect_merge_equals_single(op, spec_of("min"), mixed_samples());
}

TEST(Min, StatesSurviveSerialisation) {
  const Min op{{}};
  expect_states_survive_serialisation(op, spec_of("min"), mixed_samples());
}

TEST(Min, SpansEqualRecords) {
  const Min op{{}};
  expect_spans_equal_records(op, spec_of("min"), mixed_samples());
}

}  // namespace
}  // namespace eventsvc::plugins::aggregation
