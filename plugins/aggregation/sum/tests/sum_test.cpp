#include "sum.hpp"

#include "support/aggregation_testing.hpp"

namespace eventsvc::plugins::aggregation {
namespace {

using namespace eventsvc::testing;

TEST(Sum, AddsNumbersAndSkipsTheRest) {
  const Sum op{{}};
  // 4 + 2.5 - 1 + 10 + 2.5 = 18; "n/a" and null are skipped; the missing field is not counted.
  EXPECT_EQ(
      aggregate(op, spec_of("sum"), mixed_samples()),
      (sdk::json::object{
          {"op", "sum"}, {"field", "payload.x"}, {"value", 18.0}, {"count", 7}, {"skipped", 2}}));
  EXPECT_EQ(aggregate(op, spec_of("sum"), {}).at("value"), 0.0);
}

TEST(Sum, MergeEqualsOneState) {
  const Sum op{{}};
  expect_merge_equals_single(op, spec_of("sum"), mixed_samples());
}

TEST(Sum, StatesSurviveSerialisation) {
  const Sum op{{}};
  expect_states_survive_serialisation(op, spec_of("sum"), mixed_samples());
}

TEST(Sum, SpansEqualRecords) {
  const Sum op{{}};
  expect_spans_equal_records(op, spec_of("sum"), mixed_samples());
}

}  // namespace
}  // namespace eventsvc::plugins::aggregation
