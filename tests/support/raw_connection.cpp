#include "support/raw_connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace eventsvc::testing {

namespace {

SSL_CTX* raw_client_context() {
  static SSL_CTX* const context = [] {
    SSL_CTX* made = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(made, SSL_VERIFY_NONE, nullptr);  // the server's cert is self-signed
    return made;
  }();
  return context;
}

sockaddr_in loopback(const std::string& host, int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1) {
    throw std::runtime_error("not an IPv4 address: " + host);
  }
  return address;
}

void set_timeout(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

RawConnection::RawConnection(int port, const std::string& source) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  const sockaddr_in from = loopback(source, 0);
  const sockaddr_in to = loopback("127.0.0.1", port);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd_, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    const std::string reason = std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("connect from " + source + ": " + reason);
  }
}

RawConnection::~RawConnection() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  if (fd_ >= 0) ::close(fd_);
}

RawConnection::RawConnection(RawConnection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), ssl_(std::exchange(other.ssl_, nullptr)) {}

RawConnection& RawConnection::operator=(RawConnection&& other) noexcept {
  if (this != &other) {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    ssl_ = std::exchange(other.ssl_, nullptr);
  }
  return *this;
}

bool RawConnection::start_tls(std::chrono::milliseconds timeout) {
  set_timeout(fd_, timeout);
  ssl_ = SSL_new(raw_client_context());
  SSL_set_fd(ssl_, fd_);
  return SSL_connect(ssl_) == 1;
}

bool RawConnection::send(std::string_view bytes) {
  set_timeout(fd_, std::chrono::seconds(5));
  while (!bytes.empty()) {
    const int chunk = static_cast<int>(std::min<std::size_t>(bytes.size(), 1 << 20));
    const int sent = ssl_ != nullptr
                         ? SSL_write(ssl_, bytes.data(), chunk)
                         : static_cast<int>(::send(fd_, bytes.data(),
                                                   static_cast<std::size_t>(chunk), MSG_NOSIGNAL));
    if (sent <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

int RawConnection::receive(char* buffer, int size, std::chrono::milliseconds timeout,
                           bool& closed) {
  closed = false;
  // Bytes TLS has already decrypted are not visible to poll().
  if (ssl_ == nullptr || SSL_pending(ssl_) == 0) {
    pollfd ready{fd_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(timeout.count()));
    if (polled <= 0) return 0;
  }
  // Readable may mean only TLS records that carry no data yet: wait for more no longer than asked.
  set_timeout(fd_,
              std::clamp(timeout, std::chrono::milliseconds(1), std::chrono::milliseconds(100)));
  const int got = ssl_ != nullptr
                      ? SSL_read(ssl_, buffer, size)
                      : static_cast<int>(::recv(fd_, buffer, static_cast<std::size_t>(size), 0));
  if (got <= 0) {
    if (ssl_ != nullptr) {
      const int error = SSL_get_error(ssl_, got);
      closed = error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE;
    } else {
      closed = got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
    }
    return 0;
  }
  return got;
}

std::string RawConnection::read_until(std::chrono::milliseconds timeout,
                                      const std::function<bool(const std::string&)>& enough) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string received;
  char buffer[16384];
  while (!enough(received) && std::chrono::steady_clock::now() < deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    bool closed = false;
    const int got = receive(buffer, sizeof buffer, left, closed);
    if (closed) break;
    received.append(buffer, static_cast<std::size_t>(got));
  }
  return received;
}

std::string RawConnection::read_until_closed(std::chrono::milliseconds timeout) {
  return read_until(timeout, [](const std::string&) { return false; });
}

std::string RawConnection::read_at_least(std::size_t bytes, std::chrono::milliseconds timeout) {
  return read_until(timeout,
                    [bytes](const std::string& received) { return received.size() >= bytes; });
}

std::string RawConnection::read_response(std::chrono::milliseconds timeout) {
  return read_until(timeout, [](const std::string& received) {
    const std::size_t head_end = received.find("\r\n\r\n");
    if (head_end == std::string::npos) return false;
    std::size_t length = 0;
    const std::size_t at = received.find("Content-Length: ");
    if (at != std::string::npos && at < head_end) length = std::stoul(received.substr(at + 16));
    return received.size() >= head_end + 4 + length;
  });
}

bool RawConnection::closed_by_server(std::chrono::milliseconds timeout) {
  // Watch for the end of the stream without reading: unread bytes (a TLS session ticket, an
  // answer) must neither count as "open" nor make the check wait on a read.
  pollfd watched{fd_, POLLRDHUP, 0};
  const int polled = ::poll(&watched, 1, static_cast<int>(timeout.count()));
  return polled > 0 && (watched.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

}  // namespace eventsvc::testing
