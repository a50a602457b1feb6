// Helpers for aggregation operator tests: feed samples, and check that merging partial states gives
// the same result as one state fed everything, for every split point.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::testing {

struct TestSample {
  std::optional<sdk::json::value> value;  // nullopt: the record lacks the field
  std::optional<sdk::Millis> time;
};

inline sdk::AggregationSpec spec_of(std::string op, const char* field = "payload.x") {
  sdk::AggregationSpec spec;
  spec.name = "a";
  spec.op = std::move(op);
  if (field != nullptr) spec.field = sdk::FieldPath::parse(field);
  spec.time_field = *sdk::FieldPath::parse("timestamp");
  return spec;
}

inline void feed(const sdk::AggregationOperator& op, sdk::AggregationState& state,
                 const sdk::AggregationSpec& spec, const std::vector<TestSample>& samples,
                 std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) {
    const auto& sample = samples[i];
    op.add(state, spec, sdk::Sample{sample.value ? &*sample.value : nullptr, sample.time});
  }
}

inline sdk::json::object aggregate(const sdk::AggregationOperator& op,
                                   const sdk::AggregationSpec& spec,
                                   const std::vector<TestSample>& samples) {
  auto state = op.create_state(spec);
  feed(op, *state, spec, samples, 0, samples.size());
  return op.finalize(*state, spec);
}

// Calls check(left, right, split) with a state fed samples[0, split) and one fed the rest, for
// every split point.
template <class Check>
void for_each_split(const sdk::AggregationOperator& op, const sdk::AggregationSpec& spec,
                    const std::vector<TestSample>& samples, Check check) {
  for (std::size_t split = 0; split <= samples.size(); ++split) {
    auto left = op.create_state(spec);
    auto right = op.create_state(spec);
    feed(op, *left, spec, samples, 0, split);
    feed(op, *right, spec, samples, split, samples.size());
    check(*left, *right, split);
  }
}

// merge(first part, second part) == one state fed everything, at every split point, and merging
// into an empty state changes nothing.
inline void expect_merge_equals_single(const sdk::AggregationOperator& op,
                                       const sdk::AggregationSpec& spec,
                                       const std::vector<TestSample>& samples) {
  const auto whole = sdk::canonical_json(aggregate(op, spec, samples));
  for_each_split(op, spec, samples, [&](auto& left, auto& right, std::size_t split) {
    op.merge(left, right);
    EXPECT_EQ(sdk::canonical_json(op.finalize(left, spec)), whole) << "split at " << split;
  });
  auto empty = op.create_state(spec);
  auto full = op.create_state(spec);
  feed(op, *full, spec, samples, 0, samples.size());
  op.merge(*empty, *full);
  EXPECT_EQ(sdk::canonical_json(op.finalize(*empty, spec)), whole);
}

// A partial state written by serialize() and read back by deserialize() finalizes and merges
// exactly as the original, at every split point, and writes the same bytes again; cut or extended
// bytes and another operator's bytes are refused with Error 500.
inline void expect_states_survive_serialisation(const sdk::AggregationOperator& op,
                                                const sdk::AggregationSpec& spec,
                                                const std::vector<TestSample>& samples) {
  const auto whole = sdk::canonical_json(aggregate(op, spec, samples));
  for_each_split(op, spec, samples, [&](auto& left, auto& right, std::size_t split) {
    const std::string bytes = op.serialize(right);
    const auto back = op.deserialize(bytes);
    EXPECT_EQ(op.serialize(*back), bytes) << "split at " << split;
    EXPECT_EQ(sdk::canonical_json(op.finalize(*back, spec)),
              sdk::canonical_json(op.finalize(right, spec)))
        << "split at " << split;
    op.merge(left, *back);
    EXPECT_EQ(sdk::canonical_json(op.finalize(left, spec)), whole) << "split at " << split;
  });
  auto full = op.create_state(spec);
  feed(op, *full, spec, samples, 0, samples.size());
  const std::string bytes = op.serialize(*full);
  for (const std::size_t cut : {std::size_t{0}, std::size_t{1}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_THROW(op.deserialize(bytes.substr(0, cut)), sdk::Error) << "cut at " << cut;
  EXPECT_THROW(op.deserialize(bytes + "x"), sdk::Error);
  toolkit::StateWriter other;
  other.text("another-op");
  try {
    op.deserialize(other.take());
    ADD_FAILURE() << "read another operator's state";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.status(), 500);
    EXPECT_EQ(error.message(),
              "aggregation state of op 'another-op' given to op '" + std::string(op.op()) + "'");
  }
}

// Column spans of `chunk` rows each, as an engine with columns would hand over the samples, give
// the same result as feeding them one by one (for every chunk size).
inline void expect_spans_equal_records(const sdk::AggregationOperator& op,
                                       const sdk::AggregationSpec& spec,
                                       const std::vector<TestSample>& samples) {
  const auto whole = sdk::canonical_json(aggregate(op, spec, samples));
  for (std::size_t chunk = 1; chunk <= samples.size() + 1; ++chunk) {
    auto state = op.create_state(spec);
    for (std::size_t begin = 0; begin < samples.size(); begin += chunk) {
      const std::size_t end = std::min(samples.size(), begin + chunk);
      std::vector<double> numbers;
      std::vector<sdk::Millis> times;
      std::vector<sdk::json::value> others;
      for (std::size_t i = begin; i < end; ++i) {
        const auto& sample = samples[i];
        if (!sample.value) continue;
        if (sample.value->is_number()) {
          numbers.push_back(sample.value->to_number<double>());
          times.push_back(sample.time.value_or(sdk::kNoTime));
        } else {
          others.push_back(*sample.value);
        }
      }
      if (!op.uses_time()) times.clear();
      op.add_span(*state, spec, sdk::ColumnSpan{end - begin, numbers, times, others});
    }
    EXPECT_EQ(sdk::canonical_json(op.finalize(*state, spec)), whole) << "spans of " << chunk;
  }
}

// A mixed sample set: numbers, a string, a missing field, a null.
inline std::vector<TestSample> mixed_samples() {
  using sdk::json::value;
  return {{value(4), 1000},  {value(2.5), 2000},     {value("n/a"), 3000}, {std::nullopt, 4000},
          {value(-1), 5000}, {value(nullptr), 6000}, {value(10), 7000},    {value(2.5), 8000}};
}

}  // namespace eventsvc::testing
