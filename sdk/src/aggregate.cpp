#include "eventsvc/sdk/aggregate.hpp"

#include "eventsvc/sdk/digest.hpp"

namespace eventsvc::sdk {

bool exact_double(const json::value& number) {
  if (number.is_double()) return true;
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  if (number.is_int64()) return number.get_int64() >= -kExact && number.get_int64() <= kExact;
  return number.is_uint64() && number.get_uint64() <= static_cast<std::uint64_t>(kExact);
}

void SpanBuilder::add(const FieldValue& value, Millis time) {
  if (value.kind() == FieldValue::Kind::json && value.json_value().is_number() &&
      exact_double(value.json_value())) {
    add_number(value.json_value().to_number<double>(), time);
  } else if (value.present()) {
    add_other(value.to_json());
  } else {
    add_absent();
  }
}

void SpanBuilder::flush(const BoundAggregation& aggregation, AggregationState& state) {
  if (rows_ == 0) return;
  const std::span<const Millis> times =
      aggregation.op->uses_time() ? std::span<const Millis>(times_) : std::span<const Millis>();
  aggregation.op->add_span(state, aggregation.spec, ColumnSpan{rows_, numbers_, times, others_});
  rows_ = 0;
  numbers_.clear();
  times_.clear();
  others_.clear();
}

AggregatePartition::AggregatePartition(const AggregateRequest& request, json::object key,
                                       std::optional<Millis> bucket)
    : request_(&request), buffers_(request.aggregations.size()) {
  group_.key = std::move(key);
  group_.bucket = bucket;
  group_.states.reserve(request.aggregations.size());
  for (const auto& aggregation : request.aggregations) {
    group_.states.push_back(aggregation.op->create_state(aggregation.spec));
  }
}

void AggregatePartition::add(const Record& record) {
  count_row();
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const BoundAggregation& aggregation = request_->aggregations[i];
    const FieldValue value =
        aggregation.spec.field ? resolve(record, *aggregation.spec.field) : FieldValue::absent();
    const Millis time = aggregation.op->uses_time()
                            ? record_instant(record, aggregation.spec.time_field).value_or(kNoTime)
                            : kNoTime;
    buffers_[i].add(value, time);
  }
  flush_full();
}

void AggregatePartition::flush_full() {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (buffers_[i].full()) buffers_[i].flush(request_->aggregations[i], *group_.states[i]);
  }
}

void AggregatePartition::flush_all() {
  for (std::size_t i = 0; i < buffers_.size(); ++i)
    buffers_[i].flush(request_->aggregations[i], *group_.states[i]);
}

void AggregatePartition::merge(AggregatePartition&& other) {
  other.flush_all();
  flush_all();
  group_.count += other.group_.count;
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    request_->aggregations[i].op->merge(*group_.states[i], *other.group_.states[i]);
  }
}

AggregateGroup AggregatePartition::finish() {
  flush_all();
  return std::move(group_);
}

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

std::optional<std::pair<json::object, std::optional<Millis>>> group_key(
    const AggregateRequest& request, const Record& record) {
  json::object key;
  for (const auto& field : request.group_by)
    key[field.text] = resolve(record, field).to_json();
  std::optional<Millis> bucket;
  if (request.time_bucket) {
    const auto instant = record_instant(record, request.time_bucket->field);
    if (!instant) return std::nullopt;  // no time to place it by
    bucket = bucket_start(*instant, request.time_bucket->interval);
    key["bucket"] = format_rfc3339(*bucket);
  }
  return std::make_pair(std::move(key), bucket);
}

AggregateAccumulator::AggregateAccumulator(const AggregateRequest& request)
    : request_(&request),
      total_(std::make_unique<AggregatePartition>(request, json::object(), std::nullopt)) {}

AggregateAccumulator::~AggregateAccumulator() = default;
AggregateAccumulator::AggregateAccumulator(AggregateAccumulator&&) noexcept = default;

void AggregateAccumulator::add(const Record& record) {
  total_->add(record);
  if (request_->group_by.empty() && !request_->time_bucket) return;
  auto key = group_key(*request_, record);
  if (!key) return;
  std::string id = canonical_json(key->first);
  auto it = groups_.find(id);
  if (it == groups_.end()) {
    auto partition =
        std::make_unique<AggregatePartition>(*request_, std::move(key->first), key->second);
    it = groups_.emplace(std::move(id), std::move(partition)).first;
  }
  it->second->add(record);
}

void AggregateAccumulator::merge(AggregateAccumulator&& other) {
  total_->merge(std::move(*other.total_));
  for (auto& [id, partition] : other.groups_) {
    auto it = groups_.find(id);
    if (it == groups_.end()) {
      groups_.emplace(id, std::move(partition));
    } else {
      it->second->merge(std::move(*partition));
    }
  }
  other.groups_.clear();
}

AggregateResult AggregateAccumulator::finish(const AggregateStats& stats) {
  AggregateResult result;
  result.total = total_->finish();
  result.groups.reserve(groups_.size());
  for (auto& [id, partition] : groups_)
    result.groups.push_back(partition->finish());
  groups_.clear();
  result.stats = stats;
  return result;
}

}  // namespace eventsvc::sdk
