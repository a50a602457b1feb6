// The error answers the connection layer and the pipeline share: the API-SPEC 2.10 error body.
#pragma once

#include <cstddef>
#include <string>

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

}  // namespace eventsvc::host
