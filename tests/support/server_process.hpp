// The real eventsvc binary, started as a child process on a temporary data directory and an
// ephemeral port, as a client would meet it. Its stdout and stderr go to a log file the test can
// read; the log is printed when a test fails to start it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
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
  explicit ServerProcess(const std::string& config_yaml);
  ~ServerProcess();

  // Spawns `eventsvc serve` (plus `extra_args`) and waits until it is ready; throws on failure or
  // timeout with the log in the message.
  void start(const std::vector<std::string>& extra_args = {});
  // Spawns `eventsvc serve` and returns at once, for tests that watch what it logs while it
  // starts (log_size(), await_log()); port() is unknown then.
  void launch(const std::vector<std::string>& extra_args = {});
  // Waits until the log past byte `from` holds `text`, reading it every millisecond; false when
  // the server exits or `timeout` passes first.
  bool await_log(std::string_view text, std::size_t from, std::chrono::milliseconds timeout);
  std::size_t log_size() const;
  int stop();   // SIGTERM, waits, returns the exit status
  void kill();  // SIGKILL, waits
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  int port() const { return port_; }
  // The admin listener's port (started on an ephemeral one unless `--admin-listen` was passed);
  // 0 when it is off.
  int admin_port() const { return admin_port_; }
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
  int admin_port_ = 0;
};

// The config tests start from: every plugin of the build, generous limits, an ephemeral port.
// Each member is the body of one top-level section (indented by two spaces); tests append to or
// replace them and call yaml().
struct TestConfig {
  std::string server = "  listen: 127.0.0.1:0\n  threads: 8\n";
  std::string limits = "  anonymous_per_minute: 100000\n";
  std::string plans =
      "  default:\n"
      "    requests_per_minute: {ingest: 100000, receipts: 100000, search: 100000, query: 100000, "
      "analyze: 100000, erasures: 100000}\n"
      "    concurrency: 64\n"
      "    retention_days: 30\n";
  std::string plugins;  // default_plugins() unless set
  std::string other;    // further top-level sections, verbatim

  std::string yaml() const;
};

// The plugins section naming every plugin this build has. With EVENTSVC_TEST_SHARED_LOG set, its
// storage keeps writes in a shared PostgreSQL log (a database of its own, on one PostgreSQL the
// test process starts), as a server of a cluster does; with EVENTSVC_TEST_LOCAL_LOG set, in the
// local log plugin; otherwise in its own inbox.
std::string default_plugins();
// Whether EVENTSVC_TEST_SHARED_LOG is set.
bool shared_log_mode();
// Whether the default plugins name a durable log plugin (shared or local).
bool log_plugin_mode();
// psql -At -c `statement` in the shared log's database of `server` (shared_log_mode() only).
std::string shared_log_sql(const ServerProcess& server, const std::string& statement);
// The plugins line of the local log plugin.
inline constexpr const char* kLocalLogPlugin = "  log: {plugin: local, kind: log}\n";

std::string test_config();

// `plugins` with the rocksdb storage instance given `config` (YAML, the lines under its
// `config:`, each indented by six spaces).
std::string with_storage_config(std::string plugins, const std::string& config);

}  // namespace eventsvc::testing
