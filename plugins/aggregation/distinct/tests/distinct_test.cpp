#include "distinct.hpp"

#include "support/aggregation_testing.hpp"

namespace eventsvc::plugins::aggregation {
namespace {

using namespace eventsvc::testing;
using sdk::json::value;

TEST(Distinct, CountsDifferentValuesByCanonicalJson) {
  const Distinct op{{}};
  // 4, 2.5, "n/a", -1, null, 10 (2.5 twice): 6 distinct of 7 present
  const auto result = aggregate(op, spec_of("distinct"), mixed_samples());
  EXPECT_EQ(result.at("value"), 6);
  EXPECT_EQ(result.at("count"), 7);
  EXPECT_EQ(aggregate(op, spec_of("distinct"), {{value(1), 0}, {value(1.0), 0}, {value("1"), 0}})
                .at("value"),
            2);
  EXPECT_EQ(aggregate(op, spec_of("distinct"),
                      {{sdk::parse_json(R"({"a":1,"b":2})"), 0},
                       {sdk::parse_json(R"({"b":2,"a":1})"), 0}})
                .at("value"),
            1);
}

TEST(Distinct, MergeEqualsOneState) {
  const Distinct op{{}};
  expect_merge_equals_single(op, spec_of("distinct"), mixed_samples());
}

TEST(Distinct, StatesSurviveSerialisation) {
  const Distinct op{{}};
  expect_states_survive_serialisation(op, spec_of("distinct"), mixed_samples());
}

TEST(Distinct, SpansEqualRecords) {
  const Distinct op{{}};
  expect_spans_equal_records(op, spec_of("distinct"), mixed_samples());
}

}  // namespace
}  // namespace eventsvc::plugins::aggregation
