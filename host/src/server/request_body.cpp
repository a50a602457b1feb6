#include "server/request_body.hpp"

#include <Poco/Exception.h>

#include <array>
#include <istream>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace {

// Reading and dropping up to this much of an oversized body lets the client receive the 413
// instead of a connection reset; beyond it the connection is simply closed.
constexpr std::size_t kMaxDrainBytes = 8 << 20;

// Reads and drops up to `budget` bytes; true when the body ended within it.
bool drain(std::istream& in, std::size_t budget) {
  std::array<char, 16384> buffer{};
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(std::min(budget + 1, buffer.size())));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) return true;
    if (got > budget) return false;
    budget -= got;
  }
  return in.eof();
}

sdk::Error too_large(std::size_t limit) {
  return sdk::Error::payload_too_large(
      "request body is larger than " + std::to_string(limit) + " bytes", {{"limit_bytes", limit}});
}

}  // namespace

std::string read_body(Poco::Net::HTTPServerRequest& request, std::size_t limit,
                      bool& connection_reusable) {
  std::string body;
  const bool chunked = request.getChunkedTransferEncoding();
  const bool has_length = request.hasContentLength();
  const std::string& method = request.getMethod();
  if (!chunked && !has_length) {
    if (method == "POST" || method == "PUT" || method == "PATCH") {
      connection_reusable = false;
      throw sdk::Error(411, "send the body with a Content-Length header or chunked encoding");
    }
    return body;  // no body
  }
  std::istream& in = request.stream();
  if (has_length) {
    const auto length = static_cast<std::size_t>(request.getContentLength64());
    if (length > limit) {
      connection_reusable = length <= kMaxDrainBytes && drain(in, length);
      throw too_large(limit);
    }
    body.reserve(length);
  }
  std::array<char, 16384> buffer{};
  try {
    while (in) {
      in.read(buffer.data(), buffer.size());
      const auto got = static_cast<std::size_t>(in.gcount());
      if (got == 0) break;
      if (body.size() + got > limit) {
        connection_reusable = drain(in, kMaxDrainBytes);
        throw too_large(limit);
      }
      body.append(buffer.data(), got);
    }
  } catch (const Poco::Exception& error) {
    connection_reusable = false;
    throw sdk::Error::bad_request("could not read the request body: " + error.displayText());
  }
  if (has_length && body.size() != static_cast<std::size_t>(request.getContentLength64())) {
    connection_reusable = false;
    throw sdk::Error::bad_request("the request body ended before Content-Length bytes arrived");
  }
  return body;
}

bool discard_body(Poco::Net::HTTPServerRequest& request, std::size_t budget) {
  const bool chunked = request.getChunkedTransferEncoding();
  if (!chunked && !request.hasContentLength()) {
    const std::string& method = request.getMethod();
    // Without a length, a POST body would run to the end of the connection.
    return !(method == "POST" || method == "PUT" || method == "PATCH");
  }
  if (request.hasContentLength() &&
      static_cast<std::size_t>(request.getContentLength64()) > budget) {
    return false;
  }
  try {
    return drain(request.stream(), budget);
  } catch (const Poco::Exception&) {
    return false;
  }
}

}  // namespace eventsvc::host
