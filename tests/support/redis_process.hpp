// A real Redis server for a test: started on a free loopback port with nothing persisted, killed
// when the object dies. Tests of shared limits run their servers against it.
#pragma once

#include <sys/types.h>

#include <string>

#include "support/temp_dir.hpp"

namespace eventsvc::testing {

class RedisProcess {
 public:
  RedisProcess();  // started and answering PING, or throws with its log
  ~RedisProcess();
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  void kill();   // SIGKILL, waits: everything it held is gone
  void start();  // again, on the same port, empty

  // Sends one command (its words, none containing spaces) and returns the reply's first line,
  // e.g. command("DBSIZE") == ":0".
  std::string command(const std::string& words) const;

 private:
  TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace eventsvc::testing
