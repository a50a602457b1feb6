#include "integral.hpp"

#include "support/aggregation_testing.hpp"

namespace eventsvc::plugins::aggregation {
namespace {

using namespace eventsvc::testing;
using sdk::json::value;

constexpr sdk::Millis kMinute = 60000;

sdk::AggregationSpec integral(std::string unit, sdk::Millis max_gap_ms = 300000) {
  auto spec = spec_of("integral");
  spec.unit = std::move(unit);
  spec.max_gap_ms = max_gap_ms;
  return spec;
}

// 2 kW for 30 min, then 4 kW for 15 min, then a last sample: 1 + 1 = 2 kWh.
std::vector<TestSample> power() {
  return {{value(2), 0}, {value(4), 30 * kMinute}, {value(100), 45 * kMinute}};
}

TEST(Integral, HoldsEachValueUntilTheNextSample) {
  const Integral op{{}};
  const auto result = aggregate(op, integral("h", 3600000), power());
  EXPECT_DOUBLE_EQ(result.at("value").as_double(), 2.0);
  EXPECT_EQ(result.at("count"), 3);
  EXPECT_EQ(result.at("skipped"), 0);
}

TEST(Integral, EveryUnit) {
  const Integral op{{}};
  // 2 × 30 min + 4 × 15 min = 120 value·minutes.
  EXPECT_DOUBLE_EQ(aggregate(op, integral("h", 3600000), power()).at("value").as_double(), 2.0);
  EXPECT_DOUBLE_EQ(aggregate(op, integral("m", 3600000), power()).at("value").as_double(), 120.0);
  EXPECT_DOUBLE_EQ(aggregate(op, integral("s", 3600000), power()).at("value").as_double(), 7200.0);
  EXPECT_DOUBLE_EQ(aggregate(op, integral("ms", 3600000), power()).at("value").as_double(),
                   7200000.0);
}

TEST(Integral, GapsLongerThanMaxGapAreCreditedOnlyMaxGap) {
  const Integral op{{}};
  // Default max_gap_ms is 5 minutes: 2 × 5 min + 4 × 5 min = 30 value·minutes = 0.5 h.
  EXPECT_DOUBLE_EQ(aggregate(op, integral("h"), power()).at("value").as_double(), 0.5);
  EXPECT_DOUBLE_EQ(aggregate(op, integral("m", 20 * kMinute), power()).at("value").as_double(),
                   2 * 20 + 4 * 15.0);
}

TEST(Integral, OrderOfArrivalDoesNotMatterAndUnusableSamplesAreSkipped) {
  const Integral op{{}};
  std::vector<TestSample> samples = {{value(100), 45 * kMinute},  {value("off"), 10 * kMinute},
                                     {value(4), 30 * kMinute},    {value(7), std::nullopt},
                                     {std::nullopt, 5 * kMinute}, {value(2), 0}};
  const auto result = aggregate(op, integral("m", 3600000), samples);
  EXPECT_DOUBLE_EQ(result.at("value").as_double(), 120.0);
  EXPECT_EQ(result.at("count"), 5);
  EXPECT_EQ(result.at("skipped"), 2);
  EXPECT_DOUBLE_EQ(aggregate(op, integral("h"), {{value(5), 0}}).at("value").as_double(), 0.0);
}

TEST(Integral, MergeEqualsOneState) {
  const Integral op{{}};
  expect_merge_equals_single(op, integral("m", 3600000), power());
  expect_merge_equals_single(op, integral("h"), mixed_samples());
}

TEST(Integral, StatesSurviveSerialisation) {
  const Integral op{{}};
  expect_states_survive_serialisation(op, integral("m", 3600000), power());
  expect_states_survive_serialisation(op, integral("h"), mixed_samples());
}

TEST(Integral, SpansEqualRecords) {
  const Integral op{{}};
  expect_spans_equal_records(op, integral("m", 3600000), power());
  expect_spans_equal_records(op, integral("h"), mixed_samples());
}

}  // namespace
}  // namespace eventsvc::plugins::aggregation
