// The error answers the connection layer and the pipeline share: the API-SPEC 2.10 error body.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/error.hpp"
#include "server/http_message.hpp"

namespace eventsvc::host {

// {"statusCode": 400, "statusMessage": "Bad Request", "message": "...", "data": {...}}
std::string error_body(const sdk::Error& error);

// Makes `answer` the answer to `error`: its status, its error body, and Retry-After when the error
// has one. Headers already on `answer` (rate limits) stay.
void answer_with(Answer& answer, const sdk::Error& error);

// 413 for a body over `limit` bytes, whether declared or found while it streams.
sdk::Error body_too_large(std::size_t limit);

// 405 for `method` on `path`, which answers `allowed` (in order): adds the Allow header to
// `headers` and returns the error, whose data lists them as `allowed_methods`.
sdk::Error method_not_allowed(std::string_view method, std::string_view path,
                              const std::vector<std::string>& allowed, HeaderList& headers);

}  // namespace eventsvc::host
