#include "query/query_planner.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "eventsvc/toolkit/condition.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

namespace {

// Ordered sources are counted up to this many entries to pick the driver; a collected source is
// worth reading only when it is smaller than every ordered one.
constexpr std::size_t kEstimateCap = 1024;
// A prefix* term expands to at most this many tokens before it is only a filter.
constexpr std::size_t kMaxPrefixTokens = 256;

bool is_string_field(const sdk::FieldPath& field) {
  return field.root == sdk::FieldPath::Root::canonical && !field.is_instant() &&
         field.canonical != sdk::CanonicalField::id;
}

// The index encoding of an operand for a field; nullopt when no indexed value can equal it.
std::optional<std::string> index_value(const sdk::FieldPath& field, const json::value& operand) {
  if (field.is_canonical(sdk::CanonicalField::ingested_at)) {
    if (!operand.is_int64()) return std::nullopt;
    return encode_number(static_cast<double>(operand.get_int64()));
  }
  if (is_string_field(field) && !operand.is_string()) return std::nullopt;
  return encode_value(operand);
}

std::size_t encoded_value_length(std::string_view bytes) {
  if (bytes.empty()) return 0;
  switch (static_cast<ValueTag>(bytes[0])) {
    case ValueTag::number:
      return 9;
    case ValueTag::string:
      for (std::size_t i = 1; i + 1 < bytes.size(); ++i) {
        if (bytes[i] == '\0') {
          if (bytes[i + 1] == '\x01') return i + 2;
          ++i;  // escaped 0x00 0xFF
        }
      }
      return bytes.size();
    default:
      return 1;
  }
}

std::size_t count_up_to(CandidateStream& stream, std::size_t cap) {
  std::size_t count = 0;
  while (stream.valid() && count < cap) {
    ++count;
    stream.next();
  }
  return count;
}

// Whether the index alone decides a condition, with no need to read the record: time bounds, and
// equality on a canonical string field with a value short enough to be indexed whole.
bool decided_by_index(const sdk::Condition& condition) {
  const json::value& operand = condition.operand;
  if (condition.field.is_canonical(sdk::CanonicalField::timestamp)) {
    const bool bound = condition.op == sdk::Op::eq || condition.op == sdk::Op::gt ||
                       condition.op == sdk::Op::gte || condition.op == sdk::Op::lt ||
                       condition.op == sdk::Op::lte;
    return bound && operand.is_int64();
  }
  return is_string_field(condition.field) && condition.op == sdk::Op::eq && operand.is_string() &&
         operand.get_string().size() < kMaxIndexedStringBytes;
}

}  // namespace

bool field_indexed(const sdk::FieldPath& field) {
  if (field.root != sdk::FieldPath::Root::canonical) return !field.segments.empty();
  return field.canonical != sdk::CanonicalField::id &&
         field.canonical != sdk::CanonicalField::timestamp;
}

StreamPtr QueryPlanner::field_equals(std::string_view tenant, Scope scope,
                                     const sdk::FieldPath& field, const json::value& operand,
                                     const toolkit::TimeBounds& bounds, sdk::Order order) const {
  const auto value = index_value(field, operand);
  if (!value) return empty_stream();
  std::string prefix = field_prefix(tenant, scope, field.text);
  prefix += *value;
  return key_range_stream(database_, database_.indexes, std::move(prefix), true, "", bounds, order);
}

StreamPtr QueryPlanner::token_source(std::string_view tenant, Scope scope, std::string_view token,
                                     const toolkit::TimeBounds& bounds, sdk::Order order) const {
  return key_range_stream(database_, database_.indexes, token_prefix(tenant, scope, token), true,
                          "", bounds, order);
}

StreamPtr QueryPlanner::prefix_source(std::string_view tenant, Scope scope, std::string_view prefix,
                                      const toolkit::TimeBounds& bounds, sdk::Order order) const {
  const std::string start = frequency_key(tenant, scope, prefix);
  const std::string end = prefix_successor(start);
  const rocksdb::Slice upper(end);
  auto it = database_.iterator(database_.stats, &upper);
  const std::size_t skip = frequency_prefix(tenant, scope).size();
  std::vector<StreamPtr> streams;
  for (it->Seek(start); it->Valid(); it->Next()) {
    if (counter_value(std::string_view(it->value().data(), it->value().size())) == 0) continue;
    if (streams.size() >= kMaxPrefixTokens) return nullptr;
    const std::string_view token(it->key().data() + skip, it->key().size() - skip);
    streams.push_back(token_source(tenant, scope, token, bounds, order));
  }
  check(it->status(), "token scan");
  if (streams.empty()) return empty_stream();
  return union_stream(std::move(streams), order);
}

StreamPtr QueryPlanner::ordered_source(std::string_view tenant, Scope scope,
                                       const sdk::Condition& condition,
                                       const toolkit::TimeBounds& bounds, sdk::Order order) const {
  const auto& field = condition.field;
  std::vector<json::value> operands;
  if (condition.op == sdk::Op::eq) {
    operands.push_back(condition.operand);
  } else if (condition.op == sdk::Op::in && condition.operand.is_array()) {
    for (const auto& operand : condition.operand.get_array())
      operands.push_back(operand);
  } else {
    return nullptr;
  }
  std::vector<StreamPtr> streams;
  if (field.is_canonical(sdk::CanonicalField::id)) {
    for (const auto& operand : operands) {
      if (!operand.is_string()) continue;
      const std::string_view id = operand.get_string();
      streams.push_back(key_range_stream(database_, database_.indexes, id_prefix(tenant, scope, id),
                                         false, std::string(id), bounds, order));
    }
  } else if (field_indexed(field) && version_indexes_) {
    for (const auto& operand : operands) {
      streams.push_back(field_equals(tenant, scope, field, operand, bounds, order));
    }
  } else {
    return nullptr;
  }
  if (streams.empty()) return empty_stream();
  return union_stream(std::move(streams), order);
}

std::optional<std::vector<VersionRef>> QueryPlanner::collect(std::size_t field_prefix_size,
                                                             const std::string& lower,
                                                             const std::string& upper,
                                                             const toolkit::TimeBounds& bounds,
                                                             std::size_t limit) const {
  const rocksdb::Slice upper_slice(upper);
  auto it = database_.iterator(database_.indexes, &upper_slice);
  std::vector<VersionRef> refs;
  std::size_t seen = 0;
  for (it->Seek(lower); it->Valid(); it->Next()) {
    if (++seen > limit) return std::nullopt;
    std::string_view rest(it->key().data(), it->key().size());
    rest.remove_prefix(field_prefix_size);
    rest.remove_prefix(std::min(rest.size(), encoded_value_length(rest)));
    if (rest.size() < 8) continue;
    VersionRef ref{read_instant(rest), std::string(rest.substr(8))};
    if (ref.timestamp >= bounds.lower && ref.timestamp <= bounds.upper) {
      refs.push_back(std::move(ref));
    }
  }
  check(it->status(), "index range scan");
  return refs;
}

std::optional<std::pair<std::string, std::string>> QueryPlanner::value_range(
    std::string_view tenant, Scope scope, const sdk::Condition& condition) const {
  if (!field_indexed(condition.field) || !version_indexes_) {
    return std::nullopt;
  }
  const std::string field = field_prefix(tenant, scope, condition.field.text);
  const json::value& operand = condition.operand;
  switch (condition.op) {
    case sdk::Op::prefix: {
      // Instants are indexed as numbers; their RFC 3339 text is only checked on the record.
      if (!operand.is_string() || condition.field.is_instant()) return std::nullopt;
      std::string lower = field + encode_string_prefix(operand.get_string());
      std::string upper = prefix_successor(lower);
      return std::make_pair(std::move(lower), std::move(upper));
    }
    case sdk::Op::exists:
      if (!operand.is_bool() || !operand.get_bool()) return std::nullopt;
      return std::make_pair(field, prefix_successor(field));
    case sdk::Op::gt:
    case sdk::Op::gte:
    case sdk::Op::lt:
    case sdk::Op::lte: {
      const auto value = index_value(condition.field, operand);
      if (!value || !(operand.is_number() || operand.is_string())) return std::nullopt;
      // Every value of the operand's type, cut at the operand. Strings are bounded by their
      // indexed (possibly shortened) prefix: a superset the scan confirms.
      const std::string type_start = field + value->substr(0, 1);
      const std::string bound =
          field + (operand.is_string() ? encode_string_prefix(operand.get_string()) : *value);
      if (condition.op == sdk::Op::gt || condition.op == sdk::Op::gte) {
        return std::make_pair(bound, prefix_successor(type_start));
      }
      return std::make_pair(type_start, prefix_successor(bound));
    }
    default:
      return std::nullopt;
  }
}

std::optional<ScoredWordsPlan> QueryPlanner::plan_scored_words(
    std::string_view tenant, const sdk::RecordQuery& query,
    const toolkit::TimeBounds& bounds) const {
  const auto& text = query.text;
  if (!version_indexes_ || !query.rank_by_text || !text || text->words.empty() ||
      !text->phrases.empty() || !text->prefixes.empty() || !text->excluded.empty() ||
      bounds.empty()) {
    return std::nullopt;
  }
  if (!std::all_of(query.where.begin(), query.where.end(), decided_by_index)) return std::nullopt;
  const Scope scope = scope_of(query.source);
  ScoredWordsPlan plan;
  std::vector<StreamPtr> streams;
  for (const auto& word : text->words) {
    streams.push_back(token_source(tenant, scope, word, bounds, query.order));
    plan.words.push_back(streams.back().get());
  }
  for (const auto& condition : query.where) {
    if (condition.op == sdk::Op::eq && !condition.field.is_instant()) {
      streams.push_back(
          field_equals(tenant, scope, condition.field, condition.operand, bounds, query.order));
    }
  }
  plan.candidates = intersection_stream(std::move(streams), query.order);
  return plan;
}

std::vector<QueryPlanner::EstimatedSource> QueryPlanner::ordered_sources(
    std::string_view tenant, Scope scope, const sdk::RecordQuery& query,
    const toolkit::TimeBounds& bounds) const {
  const sdk::Order order = query.order;
  std::vector<EstimatedSource> ordered;
  auto consider = [&](const std::function<StreamPtr()>& make) {
    auto probe = make();
    if (!probe) return;
    ordered.push_back({count_up_to(*probe, kEstimateCap), make});
  };
  for (const auto& condition : query.where) {
    consider([this, tenant, scope, condition, bounds, order]() {
      return ordered_source(tenant, scope, condition, bounds, order);
    });
  }
  if (query.text && version_indexes_) {
    std::vector<std::string> words = query.text->scoring_terms();
    for (const auto& word : words) {
      consider([this, tenant, scope, word, bounds, order]() {
        return token_source(tenant, scope, word, bounds, order);
      });
    }
    for (const auto& prefix : query.text->prefixes) {
      consider([this, tenant, scope, prefix, bounds, order]() {
        return prefix_source(tenant, scope, prefix, bounds, order);
      });
    }
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const EstimatedSource& a, const EstimatedSource& b) { return a.size < b.size; });
  return ordered;
}

std::vector<std::vector<VersionRef>> QueryPlanner::collected_ranges(
    std::string_view tenant, Scope scope, const sdk::RecordQuery& query,
    const toolkit::TimeBounds& bounds, std::size_t limit) const {
  std::map<std::string, std::pair<std::string, std::string>> ranges;
  for (const auto& condition : query.where) {
    auto range = value_range(tenant, scope, condition);
    if (!range) continue;
    auto [it, inserted] = ranges.emplace(condition.field.text, *range);
    if (!inserted) {
      it->second.first = std::max(it->second.first, range->first);
      it->second.second = std::min(it->second.second, range->second);
    }
  }
  std::vector<std::vector<VersionRef>> collected;
  for (const auto& [path, range] : ranges) {
    if (range.first >= range.second) {
      collected.emplace_back();  // nothing can match
      continue;
    }
    const std::size_t prefix_size = field_prefix(tenant, scope, path).size();
    if (auto refs = collect(prefix_size, range.first, range.second, bounds, limit)) {
      collected.push_back(std::move(*refs));
    }
  }
  return collected;
}

QueryPlan QueryPlanner::plan(std::string_view tenant, const sdk::RecordQuery& query,
                             const toolkit::TimeBounds& bounds) const {
  const Scope scope = scope_of(query.source);
  QueryPlan plan;
  if (bounds.empty()) {
    plan.candidates = empty_stream();
    plan.indexed = true;
    plan.selective = true;
    return plan;
  }
  // Ordered sources, estimated by counting a bounded prefix of each; when none is small, the
  // range-like conditions' refs too.
  std::vector<EstimatedSource> ordered = ordered_sources(tenant, scope, query, bounds);
  const bool small_ordered = !ordered.empty() && ordered.front().size < kEstimateCap;
  std::vector<std::vector<VersionRef>> collected;
  if (!small_ordered) {
    collected = collected_ranges(tenant, scope, query, bounds,
                                 ordered.empty() ? collect_limit_ : kEstimateCap * 4);
  }
  std::vector<StreamPtr> streams;
  streams.reserve(ordered.size() + collected.size());
  for (auto& source : ordered)
    streams.push_back(source.make());
  for (auto& refs : collected)
    streams.push_back(listed_stream(std::move(refs), query.order));
  if (!streams.empty()) {
    plan.candidates = intersection_stream(std::move(streams), query.order);
    plan.indexed = true;
    plan.selective = small_ordered;
    return plan;
  }
  // No index applies: read current or history in time order within the bounds; a bulk query's
  // blocks are read without being kept in the block cache.
  plan.candidates = key_range_stream(
      database_, query.source == sdk::Source::current ? database_.current : database_.history,
      std::string(tenant), true, "", bounds, query.order, !query.bulk);
  plan.walks_records = query.source == sdk::Source::history;
  return plan;
}

}  // namespace eventsvc::plugins::rocksdb_storage
