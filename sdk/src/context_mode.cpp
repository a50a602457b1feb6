#include "eventsvc/sdk/context_mode.hpp"

namespace eventsvc::sdk {

std::size_t estimate_tokens_of_json_text(std::size_t json_bytes) { return (json_bytes + 3) / 4; }

std::size_t estimate_tokens(const json::value& value) {
  return estimate_tokens_of_json_text(to_json(value).size());
}

}  // namespace eventsvc::sdk
