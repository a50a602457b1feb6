#include "eventsvc/sdk/aggregate.hpp"

#include <cmath>

#include "eventsvc/sdk/digest.hpp"

namespace eventsvc::sdk {

namespace {

// Rows buffered per (partition, aggregation) before they go to the operator as one span: large
// enough that the per-span call is noise, small enough to stay in cache.
constexpr std::size_t kSpanRows = 1024;

// Whether a JSON number converts to a double without losing anything.
bool exact_double(const json::value& value) {
  if (value.is_double()) return true;
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  if (value.is_int64()) return value.get_int64() >= -kExact && value.get_int64() <= kExact;
  return value.is_uint64() && value.get_uint64() <= static_cast<std::uint64_t>(kExact);
}

// One aggregation's column buffer: the pieces of a ColumnSpan.
struct SpanBuffer {
  std::uint64_t rows = 0;
  std::vector<double> numbers;
  std::vector<Millis> number_times;
  std::vector<json::value> others;

  void flush(const BoundAggregation& aggregation, AggregationState& state) {
    if (rows == 0) return;
    const ColumnSpan span{rows, numbers, number_times, others};
    aggregation.op->add_span(state, aggregation.spec, span);
    rows = 0;
    numbers.clear();
    number_times.clear();
    others.clear();
  }
};

}  // namespace

struct AggregateAccumulator::Partition {
  AggregateGroup group;
  std::vector<SpanBuffer> buffers;  // one per aggregation

  explicit Partition(const AggregateRequest& request) : buffers(request.aggregations.size()) {
    group.states.reserve(request.aggregations.size());
    for (const auto& aggregation : request.aggregations) {
      group.states.push_back(aggregation.op->create_state(aggregation.spec));
    }
  }

  void add(const AggregateRequest& request, const Record& record) {
    ++group.count;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      const BoundAggregation& aggregation = request.aggregations[i];
      SpanBuffer& buffer = buffers[i];
      ++buffer.rows;
      if (aggregation.spec.field) {
        const FieldValue value = resolve(record, *aggregation.spec.field);
        if (value.kind() == FieldValue::Kind::json && value.json_value().is_number() &&
            exact_double(value.json_value())) {
          buffer.numbers.push_back(value.json_value().to_number<double>());
          if (aggregation.op->uses_time()) {
            buffer.number_times.push_back(
                record_instant(record, aggregation.spec.time_field).value_or(kNoTime));
          }
        } else if (value.present()) {
          buffer.others.push_back(value.to_json());
        }
      }
      if (buffer.rows >= kSpanRows) buffer.flush(aggregation, *group.states[i]);
    }
  }

  void flush(const AggregateRequest& request) {
    for (std::size_t i = 0; i < buffers.size(); ++i)
      buffers[i].flush(request.aggregations[i], *group.states[i]);
  }

  void merge(const AggregateRequest& request, Partition&& other) {
    other.flush(request);
    flush(request);
    group.count += other.group.count;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      request.aggregations[i].op->merge(*group.states[i], *other.group.states[i]);
    }
  }
};

std::optional<Millis> record_instant(const Record& record, const FieldPath& field) {
  const FieldValue value = resolve(record, field);
  if (value.kind() == FieldValue::Kind::instant) return value.instant();
  if (const auto text = value.as_string()) return parse_rfc3339(*text);
  if (value.kind() == FieldValue::Kind::json && value.json_value().is_number()) {
    return value.json_value().to_number<Millis>();
  }
  return std::nullopt;
}

Millis bucket_start(Millis instant, Millis interval) {
  Millis start = instant / interval * interval;
  if (start > instant) start -= interval;  // integer division truncates towards zero
  return start;
}

AggregateAccumulator::AggregateAccumulator(const AggregateRequest& request)
    : request_(&request), total_(std::make_unique<Partition>(request)) {}

AggregateAccumulator::~AggregateAccumulator() = default;
AggregateAccumulator::AggregateAccumulator(AggregateAccumulator&&) noexcept = default;

void AggregateAccumulator::add(const Record& record) {
  total_->add(*request_, record);
  if (request_->group_by.empty() && !request_->time_bucket) return;

  json::object key;
  for (const auto& field : request_->group_by)
    key[field.text] = resolve(record, field).to_json();
  std::optional<Millis> bucket;
  if (request_->time_bucket) {
    const auto instant = record_instant(record, request_->time_bucket->field);
    if (!instant) return;  // no time to place it by
    bucket = bucket_start(*instant, request_->time_bucket->interval);
    key["bucket"] = format_rfc3339(*bucket);
  }
  std::string id = canonical_json(key);
  auto it = groups_.find(id);
  if (it == groups_.end()) {
    auto partition = std::make_unique<Partition>(*request_);
    partition->group.key = std::move(key);
    partition->group.bucket = bucket;
    it = groups_.emplace(std::move(id), std::move(partition)).first;
  }
  it->second->add(*request_, record);
}

void AggregateAccumulator::merge(AggregateAccumulator&& other) {
  total_->merge(*request_, std::move(*other.total_));
  for (auto& [id, partition] : other.groups_) {
    auto it = groups_.find(id);
    if (it == groups_.end()) {
      groups_.emplace(id, std::move(partition));
    } else {
      it->second->merge(*request_, std::move(*partition));
    }
  }
  other.groups_.clear();
}

AggregateResult AggregateAccumulator::finish(const AggregateStats& stats) {
  AggregateResult result;
  total_->flush(*request_);
  result.total = std::move(total_->group);
  result.groups.reserve(groups_.size());
  for (auto& [id, partition] : groups_) {
    partition->flush(*request_);
    result.groups.push_back(std::move(partition->group));
  }
  groups_.clear();
  result.stats = stats;
  return result;
}

}  // namespace eventsvc::sdk
