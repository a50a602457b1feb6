#include "control/control_socket.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxRequestBytes = std::size_t{64} * 1024;
constexpr int kRequestTimeoutMs = 10'000;

sockaddr_un address_of(const fs::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string text = path.string();
  if (text.size() >= sizeof(address.sun_path)) {
    throw sdk::Error::internal("the control socket's path is longer than a Unix socket's " +
                               std::to_string(sizeof(address.sun_path) - 1) + " bytes: " + text +
                               " (choose a shorter data_dir)");
  }
  std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
  return address;
}

// A connected socket to `path`, or -1 with errno set.
int connect_to(const fs::path& path) {
  const sockaddr_un address = address_of(path);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

// One line (without its newline), or nullopt when none came whole within `timeout_ms` (-1: no
// bound) or it was longer than kMaxRequestBytes.
std::optional<std::string> read_line(int fd, int timeout_ms) {
  std::string line;
  std::array<char, 4096> buffer{};
  while (line.size() <= kMaxRequestBytes) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, timeout_ms) <= 0) return std::nullopt;
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got <= 0) return std::nullopt;
    line.append(buffer.data(), static_cast<std::size_t>(got));
    if (const auto end = line.find('\n'); end != std::string::npos) {
      line.resize(end);
      return line;
    }
  }
  return std::nullopt;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

sdk::json::object failure(int status, const std::string& message) {
  return {{"ok", false}, {"status", status}, {"message", message}};
}

}  // namespace

struct ControlSocket::State {
  State(fs::path socket_path, ControlHandler answer, LogSink& sink)
      : path(std::move(socket_path)), handler(std::move(answer)), log(sink) {}

  fs::path path;
  ControlHandler handler;
  LogSink& log;
  int listener = -1;
  bool bound = false;  // the socket file is this server's
  std::array<int, 2> wake{-1, -1};
  std::thread thread;

  void run();
  void serve(int client);
};

ControlSocket::ControlSocket(fs::path path, ControlHandler handler, LogSink& log)
    : state_(std::make_unique<State>(std::move(path), std::move(handler), log)) {}

ControlSocket::~ControlSocket() {
  stop();
}

void ControlSocket::start() {
  State& state = *state_;
  const sockaddr_un address = address_of(state.path);
  if (fs::exists(state.path)) {
    if (const int fd = connect_to(state.path); fd >= 0) {
      ::close(fd);
      throw sdk::Error::internal("another server answers on " + state.path.string());
    }
    if (errno != ECONNREFUSED) {
      throw sdk::Error::internal("cannot tell whether " + state.path.string() +
                                 " is in use: " + std::strerror(errno));
    }
    fs::remove(state.path);  // left by a server that is gone
  }
  state.listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
  const auto* raw = reinterpret_cast<const sockaddr*>(&address);
  if (state.listener >= 0 && ::bind(state.listener, raw, sizeof(address)) == 0) state.bound = true;
  if (!state.bound || ::chmod(state.path.c_str(), 0600) != 0 || ::listen(state.listener, 4) != 0 ||
      ::pipe2(state.wake.data(), O_CLOEXEC) != 0) {
    const std::string reason = std::strerror(errno);
    stop();
    throw sdk::Error::internal("cannot listen on " + state.path.string() + ": " + reason);
  }
  state.thread = std::thread([&state] { state.run(); });
}

void ControlSocket::stop() {
  State& state = *state_;
  if (state.thread.joinable()) {
    (void)::write(state.wake[1], "x", 1);
    state.thread.join();
  }
  for (int& fd : {std::ref(state.listener), std::ref(state.wake[0]), std::ref(state.wake[1])}) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  if (state.bound) {  // never the socket of another server
    std::error_code ignored;
    fs::remove(state.path, ignored);
    state.bound = false;
  }
}

void ControlSocket::State::run() {
  while (true) {
    std::array<pollfd, 2> ready{pollfd{listener, POLLIN, 0}, pollfd{wake[0], POLLIN, 0}};
    if (::poll(ready.data(), ready.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if ((ready[1].revents & POLLIN) != 0) return;
    const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    serve(client);
    ::close(client);
  }
}

void ControlSocket::State::serve(int client) {
  const auto line = read_line(client, kRequestTimeoutMs);
  if (!line) return;
  sdk::json::object answer;
  try {
    const auto request = sdk::parse_json(*line);
    if (!request.is_object()) throw sdk::Error::bad_request("a request is a JSON object");
    answer = handler(request.get_object());
  } catch (const sdk::Error& error) {
    answer = failure(error.status(), error.message());
  } catch (const std::exception& error) {
    answer = failure(500, error.what());
  }
  if (!write_all(client, sdk::to_json(answer) + "\n")) {
    log.log(sdk::LogLevel::warning, "host", "the control socket's client left before its answer");
  }
}

std::optional<sdk::json::object> ask_server(const fs::path& path,
                                            const sdk::json::object& request) {
  // A server on a data directory whose path is too long for a socket has none.
  if (path.string().size() >= sizeof(sockaddr_un::sun_path)) return std::nullopt;
  const int fd = connect_to(path);
  if (fd < 0) {
    if (errno == ENOENT || errno == ECONNREFUSED) return std::nullopt;
    throw sdk::Error::internal("cannot reach the server on " + path.string() + ": " +
                               std::strerror(errno));
  }
  const bool sent = write_all(fd, sdk::to_json(request) + "\n");
  const auto line = sent ? read_line(fd, -1) : std::nullopt;
  ::close(fd);
  if (!line) throw sdk::Error::internal("the server on " + path.string() + " did not answer");
  const auto answer = sdk::parse_json(*line);
  if (!answer.is_object()) {
    throw sdk::Error::internal("the server on " + path.string() + " answered no JSON object");
  }
  return answer.get_object();
}

std::optional<sdk::json::object> ask_server_for(const fs::path& path,
                                                const sdk::json::object& request,
                                                std::string_view field) {
  const auto answer = ask_server(path, request);
  if (!answer) return std::nullopt;
  const auto* ok = answer->if_contains("ok");
  const auto* result = answer->if_contains(field);
  if (ok == nullptr || !ok->is_bool() || !ok->get_bool() || result == nullptr ||
      !result->is_object()) {
    const auto* message = answer->if_contains("message");
    throw sdk::Error::internal(message != nullptr && message->is_string()
                                   ? std::string(message->get_string())
                                   : "the server refused the command");
  }
  return result->get_object();
}

}  // namespace eventsvc::host
