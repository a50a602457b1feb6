#include "eventsvc/sdk/context_mode.hpp"

#include <optional>

#include "eventsvc/sdk/time.hpp"

namespace eventsvc::sdk {

std::size_t estimate_tokens_of_json_text(std::size_t json_bytes) {
  return (json_bytes + 3) / 4;
}

std::size_t estimate_tokens(const json::value& value) {
  return estimate_tokens_of_json_text(to_json(value).size());
}

json::object records_freshness(const std::vector<const Record*>& records, Millis expected_ms,
                               Millis now) {
  std::optional<Millis> newest;
  for (const auto* record : records) {
    if (!newest || record->timestamp > *newest) newest = record->timestamp;
  }
  if (!newest) return {{"newest_timestamp", nullptr}, {"stale", true}};
  return {{"newest_timestamp", format_rfc3339(*newest)}, {"stale", now - *newest > expected_ms}};
}

std::size_t settle_token_count(json::object& context, std::string_view member) {
  std::size_t tokens = 0;
  context[member] = 0;
  // Converges in at most a few rounds: each round can only add a digit.
  for (int round = 0; round < 8; ++round) {
    const std::size_t next = estimate_tokens(context);
    if (next == tokens) break;
    tokens = next;
    context[member] = tokens;
  }
  return tokens;
}

}  // namespace eventsvc::sdk
