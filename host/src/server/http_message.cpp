#include "server/http_message.hpp"

#include <strings.h>

namespace eventsvc::host {

namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

const std::string* RequestHead::header(std::string_view name) const {
  for (const auto& [field, value] : headers) {
    if (same_name(field, name)) return &value;
  }
  return nullptr;
}

std::size_t RequestHead::header_count(std::string_view name) const {
  std::size_t count = 0;
  for (const auto& [field, value] : headers) {
    if (same_name(field, name)) ++count;
  }
  return count;
}

std::string_view RequestHead::path() const {
  const std::string_view whole(target);
  return whole.substr(0, whole.find('?'));
}

}  // namespace eventsvc::host
