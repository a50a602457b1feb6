// What the connection layer hands the request pipeline and gets back: a request head as it
// arrived, and an answer to write. Independent of the HTTP library that parses and writes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace eventsvc::host {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct RequestHead {
  std::string method;
  std::string target;  // path and query, as sent
  std::string client_address;
  HeaderList headers;  // in the order received
  std::optional<std::uint64_t> content_length;
  bool chunked = false;

  // The first header named `name` (compared without case), or nullptr.
  const std::string* header(std::string_view name) const;
  // How many headers are named `name`.
  std::size_t header_count(std::string_view name) const;
  // The URL's query as (name, value) pairs in order, %-decoded; 400 for a malformed escape.
  std::vector<std::pair<std::string, std::string>> query_parameters() const;
  // The path without the query.
  std::string_view path() const;
  // The request says a body follows (a length, even 0, or chunked).
  bool has_body_framing() const { return content_length.has_value() || chunked; }
};

struct Answer {
  int status = 200;
  std::string body;  // JSON
  HeaderList headers;
  // False: the connection is closed after this answer.
  bool keep_alive = true;
};

}  // namespace eventsvc::host
