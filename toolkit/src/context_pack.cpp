#include "eventsvc/toolkit/context_pack.hpp"

#include <memory>
#include <optional>
#include <unordered_map>

#include "eventsvc/toolkit/cells.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::toolkit {

using sdk::CellFields;
using sdk::CellVisitor;
using sdk::RecordKey;

void serve_cells_from_records(ContextInput& input, std::vector<const Record*> matches) {
  auto records = std::make_shared<const std::vector<const Record*>>(std::move(matches));
  input.cells = [records, complete = input.scan_complete](const CellFields& fields,
                                                          const CellVisitor& visit) {
    visit_cells(*records, fields, visit);
    return complete;
  };
  // Indexed by id the first time it is asked: packs cite thousands of records.
  auto by_id = std::make_shared<std::unordered_multimap<std::string_view, const Record*>>();
  input.load = [records, by_id](const std::vector<RecordKey>& keys) {
    if (by_id->empty()) {
      for (const auto* record : *records)
        by_id->emplace(record->id, record);
    }
    std::vector<Record> found;
    for (const auto& key : keys) {
      const auto [begin, end] = by_id->equal_range(key.id);
      for (auto it = begin; it != end; ++it) {
        if (it->second->timestamp == key.timestamp) {
          found.push_back(*it->second);
          break;
        }
      }
    }
    return found;
  };
}

std::size_t estimate_tokens_of_json_text(std::size_t json_bytes) {
  return (json_bytes + 3) / 4;
}

std::size_t estimate_tokens(const json::value& value) {
  return estimate_tokens_of_json_text(sdk::to_json(value).size());
}

json::object records_freshness(const std::vector<const Record*>& records, Millis expected_ms,
                               Millis now) {
  std::optional<Millis> newest;
  for (const auto* record : records) {
    if (!newest || record->timestamp > *newest) newest = record->timestamp;
  }
  return freshness_of_newest(newest, expected_ms, now);
}

json::object freshness_of_newest(std::optional<Millis> newest, Millis expected_ms, Millis now) {
  if (!newest) return {{"newest_timestamp", nullptr}, {"stale", true}};
  return {{"newest_timestamp", format_rfc3339(*newest)}, {"stale", now - *newest > expected_ms}};
}

std::size_t settle_token_count(json::object& context, std::string_view member) {
  // Only the count's own width moves the count, and it only grows with the count: counting again
  // from the pack with a one-digit count rises to the smallest count that counts itself, and
  // stops there (each round is at most that count, and at least the round before).
  context[member] = 0;
  std::size_t tokens = estimate_tokens(context);
  for (;;) {
    context[member] = tokens;
    const std::size_t next = estimate_tokens(context);
    if (next == tokens) return tokens;
    tokens = next;
  }
}

}  // namespace eventsvc::toolkit
