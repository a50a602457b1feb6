#include "eventsvc/sdk/field_walk.hpp"

namespace eventsvc::sdk {

bool addressable_key(std::string_view key) {
  return !key.empty() && key.find('.') == std::string_view::npos;
}

}  // namespace eventsvc::sdk
