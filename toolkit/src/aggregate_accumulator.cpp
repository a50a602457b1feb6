#include "eventsvc/toolkit/aggregate_accumulator.hpp"

#include <algorithm>

#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::toolkit {

bool exact_double(const json::value& number) {
  if (number.is_double()) return true;
  if (number.is_int64()) return exact_double(number.get_int64());
  return number.is_uint64() && number.get_uint64() <= std::uint64_t{1} << 53;
}

void SpanBuilder::add(const FieldValue& value, Millis time) {
  ++rows_;
  if (value.kind() == FieldValue::Kind::json && value.json_value().is_number() &&
      exact_double(value.json_value())) {
    numbers_.push_back(value.json_value().to_number<double>());
    if (keep_times_) times_.push_back(time);
  } else if (value.present()) {
    others_.push_back(value.to_json());
  }
}

void SpanBuilder::flush(const BoundAggregation& aggregation, AggregationState& state) {
  if (rows_ == 0) return;
  const std::span<const Millis> times =
      aggregation.op->uses_time() ? std::span<const Millis>(times_) : std::span<const Millis>();
  aggregation.op->add_span(state, aggregation.spec,
                           sdk::ColumnSpan{rows_, numbers_, times, others_});
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
  for (std::size_t i = 0; i < request.aggregations.size(); ++i) {
    const BoundAggregation& aggregation = request.aggregations[i];
    group_.states.push_back(aggregation.op->create_state(aggregation.spec));
    buffers_[i].keep_times(aggregation.op->uses_time());
  }
}

void AggregatePartition::add(const Record& record) {
  count_row();
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const BoundAggregation& aggregation = request_->aggregations[i];
    const FieldValue value =
        aggregation.spec.field ? resolve(record, *aggregation.spec.field) : FieldValue::absent();
    const Millis time =
        aggregation.op->uses_time()
            ? record_instant(record, aggregation.spec.time_field).value_or(sdk::kNoTime)
            : sdk::kNoTime;
    buffers_[i].add(value, time);
  }
  flush_full();
}

void AggregatePartition::flush_full() {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (buffers_[i].full()) buffers_[i].flush(request_->aggregations[i], *group_.states[i]);
  }
}

std::size_t SpanBuilder::add_numbers(std::span<const double> numbers) {
  const std::size_t fit = std::min<std::size_t>(numbers.size(), kRows - std::min(rows_, kRows));
  numbers_.insert(numbers_.end(), numbers.begin(),
                  numbers.begin() + static_cast<std::ptrdiff_t>(fit));
  if (keep_times_) times_.insert(times_.end(), fit, sdk::kNoTime);
  rows_ += fit;
  return fit;
}

std::uint64_t SpanBuilder::add_absent(std::uint64_t rows) {
  const std::uint64_t fit = std::min(rows, kRows - std::min(rows_, kRows));
  rows_ += fit;
  return fit;
}

void AggregatePartition::add_numbers(std::size_t aggregation, std::span<const double> numbers) {
  SpanBuilder& values = buffers_[aggregation];
  const BoundAggregation& bound = request_->aggregations[aggregation];
  do {
    // A whole span from where the builder is empty is the span the builder would hand over: it
    // goes to the operator in place instead of through a copy.
    if (values.empty() && numbers.size() >= SpanBuilder::kRows && !bound.op->uses_time()) {
      bound.op->add_span(
          *group_.states[aggregation], bound.spec,
          sdk::ColumnSpan{SpanBuilder::kRows, numbers.first(SpanBuilder::kRows), {}, {}});
      numbers = numbers.subspan(SpanBuilder::kRows);
      continue;
    }
    numbers = numbers.subspan(values.add_numbers(numbers));
    flush_full(aggregation);
  } while (!numbers.empty());
}

void AggregatePartition::add_absent(std::size_t aggregation, std::uint64_t rows) {
  SpanBuilder& values = buffers_[aggregation];
  do {
    rows -= values.add_absent(rows);
    flush_full(aggregation);
  } while (rows > 0);
}

void AggregatePartition::flush_full(std::size_t aggregation) {
  SpanBuilder& values = buffers_[aggregation];
  if (values.full()) values.flush(request_->aggregations[aggregation], *group_.states[aggregation]);
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

void append_group_key(std::string& key, const FieldValue& value) {
  auto append_text = [&](char tag, std::string_view text) {
    key.push_back(tag);
    const auto size = static_cast<std::uint32_t>(text.size());
    key.append(reinterpret_cast<const char*>(&size), sizeof size);  // length first: unambiguous
    key.append(text);
  };
  // Absent renders as null.
  if (!value.present() ||
      (value.kind() == FieldValue::Kind::json && value.json_value().is_null())) {
    key.push_back('z');
  } else if (value.kind() == FieldValue::Kind::instant) {
    append_text('s', format_rfc3339(value.instant()));
  } else if (const auto text = value.as_string()) {
    append_text('s', *text);
  } else {
    append_text('j', sdk::canonical_json(value.json_value()));
  }
}

AggregateAccumulator::AggregateAccumulator(const AggregateRequest& request)
    : request_(&request), total_(request, json::object(), std::nullopt) {}

AggregatePartition& AggregateAccumulator::group(std::string& key, std::optional<Millis> bucket,
                                                const std::function<json::object()>& make_key) {
  if (bucket) key.append(reinterpret_cast<const char*>(&*bucket), sizeof *bucket);
  auto it = groups_.find(key);
  if (it == groups_.end()) {
    json::object rendered = make_key();
    if (bucket) rendered["bucket"] = format_rfc3339(*bucket);
    it = groups_
             .emplace(key,
                      std::make_unique<AggregatePartition>(*request_, std::move(rendered), bucket))
             .first;
  }
  return *it->second;
}

void AggregateAccumulator::add(const Record& record) {
  total_.add(record);
  if (!grouping()) return;
  std::optional<Millis> bucket;
  if (request_->time_bucket) {
    const auto instant = record_instant(record, request_->time_bucket->field);
    if (!instant) return;  // no time to place it by: in no group
    bucket = bucket_start(*instant, request_->time_bucket->interval);
  }
  key_.clear();
  for (const auto& field : request_->group_by)
    append_group_key(key_, resolve(record, field));
  group(key_, bucket, [&] {
    json::object rendered;
    for (const auto& field : request_->group_by)
      rendered[field.text] = resolve(record, field).to_json();
    return rendered;
  }).add(record);
}

void AggregateAccumulator::merge(AggregateAccumulator&& other) {
  total_.merge(std::move(other.total_));
  for (auto& [key, partition] : other.groups_) {
    const auto it = groups_.find(key);
    if (it == groups_.end()) {
      groups_.emplace(key, std::move(partition));
    } else {
      it->second->merge(std::move(*partition));
    }
  }
  other.groups_.clear();
}

AggregateResult AggregateAccumulator::finish(const AggregateStats& stats) {
  AggregateResult result;
  result.total = total_.finish();
  std::vector<std::pair<std::string, AggregatePartition*>> ordered;
  ordered.reserve(groups_.size());
  for (const auto& [key, partition] : groups_)
    ordered.emplace_back(sdk::canonical_json(partition->key()), partition.get());
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  result.groups.reserve(ordered.size());
  for (const auto& [canonical, partition] : ordered)
    result.groups.push_back(partition->finish());
  groups_.clear();
  result.stats = stats;
  return result;
}

AggregateResult aggregate_by_scanning(sdk::Storage& storage, const sdk::Tenant& tenant,
                                      const AggregateRequest& request) {
  sdk::RecordQuery query;
  query.source = request.source;
  query.where = request.where;
  query.text = request.text;
  query.limit = 0;
  query.scan_limit = std::numeric_limits<std::size_t>::max();
  AggregateAccumulator accumulator(request);
  const sdk::ScanStats scanned = storage.scan(tenant, query, [&](const Record& record, double) {
    accumulator.add(record);
    return true;
  });
  return accumulator.finish({scanned.scanned, scanned.matched, scanned.indexed});
}

}  // namespace eventsvc::toolkit
