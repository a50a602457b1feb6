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

}  // namespace eventsvc::sdk
