#include "max.hpp"

#include "support/aggregation_testing.hpp"

namespace eventsvc::plugins::aggregation {
namespace {

using namespace eventsvc::testing;

TEST(Max, LargestNumber) {
  const Max op{{}};
  const auto result = aggregate(op, spec_of("max"), mixed_samples());
  EXPECT_EQ(result.at("value"), 10.0);
  EXPECT_EQ(result.at("count"), 7);
  EXPECT_TRUE(aggregate(op, spec_of("max"), {{std::nullopt, 0}}).at("value").is_null());
}

TEST(Max, MergeEqualsOneState) {
  const Max op{{}};
  expect_merge_equals_single(op, spec_of("max"), mixed_samples());
}

TEST(Max, StatesSurviveSerialisation) {
  const Max op{{}};
  expect_states_survive_serialisation(op, spec_of("max"), mixed_samples());
}

TEST(Max, SpansEqualRecords) {
  const Max op{{}};
  expect_spans_equal_records(op, spec_of("max"), mixed_samples());
}

}  // namespace
}  // namespace eventsvc::plugins::aggregation
