#include "count.hpp"

#include "support/aggregation_testing.hpp"
#include "support/plugin_context.hpp"

namespace eventsvc::plugins::aggregation {
namespace {

using namespace eventsvc::testing;

TEST(Count, WithoutFieldCountsRecords) {
  const Count op{{}};
  const auto result = aggregate(op, spec_of("count", nullptr), mixed_samples());
  EXPECT_EQ(result,
            (sdk::json::object{
                {"op", "count"}, {"field", nullptr}, {"value", 8}, {"count", 8}, {"skipped", 0}}));
}

TEST(Count, WithFieldCountsRecordsThatHaveIt) {
  const Count op{{}};
  const auto result = aggregate(op, spec_of("count"), mixed_samples());
  EXPECT_EQ(result.at("value"), 7);  // the null is present; the missing one is not
  EXPECT_EQ(result.at("count"), 7);
  EXPECT_EQ(result.at("field"), "payload.x");
}

TEST(Count, MergeEqualsOneState) {
  const Count op{{}};
  expect_merge_equals_single(op, spec_of("count"), mixed_samples());
  expect_merge_equals_single(op, spec_of("count", nullptr), mixed_samples());
  EXPECT_FALSE(op.requires_field());
}

TEST(Count, StatesSurviveSerialisation) {
  const Count op{{}};
  expect_states_survive_serialisation(op, spec_of("count"), mixed_samples());
  expect_states_survive_serialisation(op, spec_of("count", nullptr), mixed_samples());
  EXPECT_FALSE(op.requires_field());
}

TEST(Count, SpansEqualRecords) {
  const Count op{{}};
  expect_spans_equal_records(op, spec_of("count"), mixed_samples());
  expect_spans_equal_records(op, spec_of("count", nullptr), mixed_samples());
  EXPECT_FALSE(op.requires_field());
}

}  // namespace
}  // namespace eventsvc::plugins::aggregation
