#include "eventsvc/sdk/context_mode.hpp"

namespace eventsvc::sdk {

std::size_t estimate_tokens_of_json_text(std::size_t json_bytes) {
  return (json_bytes + 3) / 4;
}

std::size_t estimate_tokens(const json::value& value) {
  return estimate_tokens_of_json_text(to_json(value).size());
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

std::size_t drop_from_back(json::array& items, std::size_t overshoot_tokens) {
  std::size_t removed = 0;
  std::size_t freed_bytes = 0;
  while (!items.empty() && (removed == 0 || freed_bytes < overshoot_tokens * 4)) {
    freed_bytes += to_json(items.back()).size() + 1;  // the item and its comma
    items.pop_back();
    ++removed;
  }
  return removed;
}

}  // namespace eventsvc::sdk
