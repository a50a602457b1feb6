#include "server/http_message.hpp"

#include <strings.h>

#include <cctype>
#include <cstdlib>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// %XX and '+' decoded; nullopt for a malformed escape.
std::optional<std::string> url_decoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] != '%') {
      out.push_back(text[i]);
    } else {
      if (i + 2 >= text.size()) return std::nullopt;
      const int high = hex(text[i + 1]);
      const int low = hex(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    }
  }
  return out;
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

std::vector<std::pair<std::string, std::string>> RequestHead::query_parameters() const {
  std::vector<std::pair<std::string, std::string>> parameters;
  const auto mark = target.find('?');
  if (mark == std::string::npos) return parameters;
  std::string_view rest = std::string_view(target).substr(mark + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    auto name = url_decoded(pair.substr(0, eq));
    auto value =
        url_decoded(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
    if (!name || !value) throw sdk::Error::bad_request("the URL's query has a malformed %-escape");
    parameters.emplace_back(std::move(*name), std::move(*value));
  }
  return parameters;
}

std::string_view RequestHead::path() const {
  const std::string_view whole(target);
  return whole.substr(0, whole.find('?'));
}

bool header_names(const std::string* header, std::string_view token) {
  if (header == nullptr) return false;
  std::string list(*header);
  for (auto& c : list)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = list.find(',', start);
    const std::string_view item = std::string_view(list).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto semicolon = item.find(';');
    std::string_view name = item.substr(0, semicolon);
    while (!name.empty() && name.front() == ' ')
      name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ')
      name.remove_suffix(1);
    if (name == token) {
      const std::string_view params =
          semicolon == std::string_view::npos ? std::string_view() : item.substr(semicolon);
      const auto q = params.find("q=");
      if (q == std::string_view::npos) return true;
      return std::strtod(std::string(params.substr(q + 2)).c_str(), nullptr) > 0;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

}  // namespace eventsvc::host
