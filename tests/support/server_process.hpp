// The real eventsvc binary, started as a child process on a temporary data directory and an
// ephemeral port, as a client would meet it. Its stdout and stderr go to a log file the test can
// read; the log is printed when a test fails to start it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace eventsvc::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the eventsvc binary with `args` and waits for it.
CommandResult run_eventsvc(const std::vector<std::string>& args);

class ServerProcess {
 public:
  // `config_yaml` is written to <dir>/eventsvc.yaml; data lives in <dir>/data.
  explicit ServerProcess(std::string config_yaml);
  ~ServerProcess();

  void start();                  // spawns and waits until it is ready (throws on failure/timeout)
  int stop();                    // SIGTERM, waits, returns the exit status
  void kill();                   // SIGKILL, waits
  bool running() const { return pid_ > 0; }

  int port() const { return port_; }
  const std::filesystem::path& dir() const { return dir_.path(); }
  std::filesystem::path data_dir() const { return dir_.path() / "data"; }
  std::filesystem::path config_path() const { return dir_.path() / "eventsvc.yaml"; }
  std::string log() const;

  // `eventsvc <args> --config <this config> --data-dir <this data dir>`.
  CommandResult cli(std::vector<std::string> args) const;
  // Creates a key and returns its secret (throws when the CLI fails).
  std::string create_key(const std::string& workspace, const std::string& env,
                         const std::string& scopes = "events:read,events:write",
                         const std::string& plan = "default") const;

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// The base YAML config tests start from: all plugins of the build, generous limits, listening on
// an ephemeral port. `extra` is appended (later keys of the same section replace earlier ones, so
// tests pass whole sections).
std::string test_config(const std::string& extra = "");

}  // namespace eventsvc::testing
