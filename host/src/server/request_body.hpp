// Reading a request body within a byte limit: 413 decided from Content-Length before reading and
// enforced while reading (chunked bodies have no length up front).
#pragma once

#include <Poco/Net/HTTPServerRequest.h>

#include <cstddef>
#include <string>

namespace eventsvc::host {

// Returns the body. Sets `connection_reusable` to false when unread bytes remain, so the caller
// closes the connection after answering. Throws sdk::Error: 413 when the body exceeds `limit` bytes
// (after draining what is cheap to drain, so the client sees the answer), 411 for a POST without
// Content-Length or chunked encoding, 400 when the client stops sending mid-body.
std::string read_body(Poco::Net::HTTPServerRequest& request, std::size_t limit,
                      bool& connection_reusable);

// For answers given before the body was read (auth failures, limits): reads and drops up to
// `budget` bytes of it. Returns whether the connection can carry another request.
bool discard_body(Poco::Net::HTTPServerRequest& request, std::size_t budget);

}  // namespace eventsvc::host
