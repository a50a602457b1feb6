#include "support/redis_process.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "support/child_process.hpp"

namespace eventsvc::testing {

namespace {

// The first line Redis answers to `words`, or empty when nothing listens.
std::string ask(int port, const std::string& words) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval timeout{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    const std::string line = words + "\r\n";
    if (::send(fd, line.data(), line.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(line.size())) {
      char c = 0;
      while (::recv(fd, &c, 1, 0) == 1 && c != '\r')
        reply.push_back(c);
    }
  }
  ::close(fd);
  return reply;
}

}  // namespace

RedisProcess::RedisProcess() : port_(free_loopback_port()) {
  start();
}

RedisProcess::~RedisProcess() {
  kill();
}

void RedisProcess::start() {
  const auto log = dir_.path() / "redis.log";
  pid_ = spawn_process(EVENTSVC_REDIS_SERVER,
                       {"--port", std::to_string(port_), "--bind", "127.0.0.1", "--save", "",
                        "--appendonly", "no", "--dir", dir_.path().string()},
                       log, log, true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (ask(port_, "PING") == "+PONG") return;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error(std::string("redis-server (") + EVENTSVC_REDIS_SERVER +
                               ") exited during start:\n" + read_file(log));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill();
  throw std::runtime_error("redis-server did not answer PING:\n" + read_file(log));
}

void RedisProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  wait_for(pid_);
  pid_ = -1;
}

std::string RedisProcess::command(const std::string& words) const {
  return ask(port_, words);
}

}  // namespace eventsvc::testing
