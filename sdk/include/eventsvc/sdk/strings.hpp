// Small string helpers shared by the host and plugins.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace eventsvc::sdk {

// The items' names joined by `separator`: join(fields, ", ", &Field::key).
template <class Range, class Projection>
std::string join(const Range& items, std::string_view separator, Projection project) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += std::invoke(project, item);
  }
  return out;
}

template <class Range>
std::string join(const Range& items, std::string_view separator) {
  return join(items, separator, [](const auto& item) -> decltype(auto) { return item; });
}

}  // namespace eventsvc::sdk
