#include "eventsvc/toolkit/field_walk.hpp"

namespace eventsvc::toolkit {

bool addressable_key(std::string_view key) {
  return !key.empty() && key.find('.') == std::string_view::npos;
}

}  // namespace eventsvc::toolkit
