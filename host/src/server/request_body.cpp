#include "server/request_body.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>

#include <array>
#include <chrono>
#include <istream>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace {

// Reading and dropping up to this much of a chunked body found oversized while it streams lets
// the client receive the 413 instead of a connection reset; beyond it the connection is closed.
constexpr std::size_t kMaxDrainBytes = 8 << 20;

// Reads and drops up to `budget` bytes; true when the body ended within it.
bool drain(std::istream& in, std::size_t budget) {
  std::array<char, 16384> buffer{};
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(std::min(budget + 1, buffer.size())));
    const auto got = static_cast<std::size_t>(in.gcount());
    // Nothing read: the body's end, or a read that timed out or failed (the stream then reports
    // badbit), after which the connection's bytes are in an unknown state.
    if (got == 0) return !in.bad();
    if (got > budget) return false;
    budget -= got;
  }
  return in.eof();
}

// Before a 413 closes the connection, reads and drops what the client is still sending, for at
// most kLingerTime in all and kLingerRead per read, so that a client writing its whole body reads
// the answer instead of a connection reset; a client that sends nothing more costs one
// kLingerRead.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr auto kLingerRead = std::chrono::milliseconds(200);

void linger(Poco::Net::HTTPServerRequest& request, std::istream& in) {
  auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  if (impl == nullptr) return;
  const auto deadline = std::chrono::steady_clock::now() + kLingerTime;
  std::array<char, 16384> buffer{};
  std::size_t dropped = 0;
  try {
    impl->socket().setReceiveTimeout(
        Poco::Timespan(std::chrono::duration_cast<std::chrono::microseconds>(kLingerRead).count()));
    while (in && dropped < kMaxDrainBytes && std::chrono::steady_clock::now() < deadline) {
      in.read(buffer.data(), buffer.size());
      dropped += static_cast<std::size_t>(in.gcount());
      if (in.gcount() == 0) break;
    }
  } catch (const Poco::Exception&) {
    // a read timed out or the client closed: done
  }
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
      // Answered from the declared length: waiting for bytes the answer does not need would hold
      // a worker for as long as the client cares to send them. The connection is closed after
      // the 413, once what the client is still sending has been let in for a bounded time.
      connection_reusable = false;
      linger(request, in);
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
