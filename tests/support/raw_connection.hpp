// One client connection driven by hand, as a slow or hostile client would: TCP from a chosen
// source address in 127.0.0.0/8 (several addresses stand for several clients), TLS optional, and
// bytes sent and read exactly when the test says. Blocking sockets, OpenSSL directly.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace eventsvc::testing {

class RawConnection {
 public:
  // Connects TCP to 127.0.0.1:`port` from `source` (port chosen by the kernel). Throws
  // std::runtime_error when the connection cannot be made.
  RawConnection(int port, const std::string& source = "127.0.0.1");
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  RawConnection(RawConnection&& other) noexcept;
  RawConnection& operator=(RawConnection&& other) noexcept;

  // Completes a TLS handshake within `timeout`; false when the server refused or closed.
  bool start_tls(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Sends all of `bytes` (over TLS once started); false when the server has closed.
  bool send(std::string_view bytes);
  // Reads until the server closes the connection or `timeout` passes; returns what arrived.
  std::string read_until_closed(std::chrono::milliseconds timeout);
  // Reads until at least `bytes` arrived, the server closes or `timeout` passes.
  std::string read_at_least(std::size_t bytes, std::chrono::milliseconds timeout);
  // Reads one HTTP response (head and Content-Length body) within `timeout`; "" when none came.
  std::string read_response(std::chrono::milliseconds timeout);
  // True when the server has closed the connection (its end of the stream or a reset arrives)
  // within `timeout`; false when it is still open.
  bool closed_by_server(std::chrono::milliseconds timeout);

 private:
  int receive(char* buffer, int size, std::chrono::milliseconds timeout, bool& closed);
  // Reads until `enough` says so of what arrived, the server closes, or `timeout` passes.
  std::string read_until(std::chrono::milliseconds timeout,
                         const std::function<bool(const std::string&)>& enough);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
};

}  // namespace eventsvc::testing
