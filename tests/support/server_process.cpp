#include "support/server_process.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "support/child_process.hpp"
#include "support/postgres_process.hpp"

namespace eventsvc::testing {

CommandResult run_eventsvc(const std::vector<std::string>& args) {
  TempDir dir;
  const auto out = dir.path() / "out";
  const auto err = dir.path() / "err";
  const pid_t pid = spawn_process(EVENTSVC_BINARY, args, out, err, false);
  CommandResult result;
  result.exit_code = wait_for(pid);
  result.out = read_file(out);
  result.err = read_file(err);
  return result;
}

ServerProcess::ServerProcess(const std::string& config_yaml) {
  std::ofstream(config_path()) << config_yaml;
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) kill();
}

std::string ServerProcess::log() const {
  return read_file(dir_.path() / "server.log");
}

std::size_t ServerProcess::log_size() const {
  const auto log_path = dir_.path() / "server.log";
  return std::filesystem::exists(log_path) ? std::filesystem::file_size(log_path) : 0;
}

void ServerProcess::launch(const std::vector<std::string>& extra_args) {
  const auto log_path = dir_.path() / "server.log";
  std::vector<std::string> args = {"serve",      "--config",          config_path().string(),
                                   "--data-dir", data_dir().string(), "--listen",
                                   "127.0.0.1:0"};
  if (std::find(extra_args.begin(), extra_args.end(), "--admin-listen") == extra_args.end()) {
    args.insert(args.end(), {"--admin-listen", "127.0.0.1:0"});
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  pid_ = spawn_process(EVENTSVC_BINARY, args, log_path, log_path, true);
  port_ = 0;
  admin_port_ = 0;
}

bool ServerProcess::await_log(std::string_view text, std::size_t from,
                              std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (read_file(dir_.path() / "server.log", from).find(text) != std::string::npos) return true;
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

void ServerProcess::start(const std::vector<std::string>& extra_args) {
  const std::size_t offset = log_size();
  launch(extra_args);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const std::string marker = "eventsvc ready: https://127.0.0.1:";
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string text = log().substr(std::min(offset, log().size()));
    if (const auto at = text.find(marker); at != std::string::npos) {
      port_ = std::stoi(text.substr(at + marker.size()));
      // Printed before the ready line, when the admin listener is on.
      const std::string admin_marker = "eventsvc admin: http://127.0.0.1:";
      if (const auto admin = text.find(admin_marker); admin != std::string::npos) {
        admin_port_ = std::stoi(text.substr(admin + admin_marker.size()));
      }
      return;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("eventsvc exited during start:\n" + text);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill();
  throw std::runtime_error("eventsvc did not become ready:\n" + log());
}

int ServerProcess::stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  const int status = wait_for(pid_);
  pid_ = -1;
  if (status != 0) {
    // A server that did not stop cleanly says why in its log (a sanitizer report, an exception);
    // a test's failure output shows its end.
    const std::string text = log();
    constexpr std::size_t kTail = 16 * 1024;
    std::fprintf(stderr, "eventsvc exited with %d on SIGTERM; the end of its log:\n%s\n", status,
                 text.substr(text.size() > kTail ? text.size() - kTail : 0).c_str());
  }
  return status;
}

void ServerProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  wait_for(pid_);
  pid_ = -1;
}

CommandResult ServerProcess::cli(std::vector<std::string> args) const {
  args.insert(args.end(), {"--config", config_path().string(), "--data-dir", data_dir().string()});
  return run_eventsvc(args);
}

std::string ServerProcess::create_key(const std::string& workspace, const std::string& env,
                                      const std::string& scopes, const std::string& plan) const {
  const auto result = cli({"keys", "create", "--workspace", workspace, "--env", env, "--scopes",
                           scopes, "--plan", plan});
  if (result.exit_code != 0) throw std::runtime_error("keys create failed: " + result.err);
  std::string key = result.out.substr(0, result.out.find('\n'));
  return key;
}

bool shared_log_mode() {
  const char* shared = std::getenv("EVENTSVC_TEST_SHARED_LOG");
  return shared != nullptr && *shared != '\0';
}

bool log_plugin_mode() {
  const char* local = std::getenv("EVENTSVC_TEST_LOCAL_LOG");
  return shared_log_mode() || (local != nullptr && *local != '\0');
}

namespace {

// The storage plugin, with the local log plugin in local-log mode; in shared-log mode with the
// postgres log plugin: one PostgreSQL for the test process, a database for each config made
// (docs/scale-out.md).
PostgresProcess& shared_log_postgres() {
  static PostgresProcess postgres;
  return postgres;
}

std::string storage_plugin() {
  if (!shared_log_mode())
    return log_plugin_mode() ? std::string("  rocksdb:\n") + kLocalLogPlugin : "  rocksdb:\n";
  auto& postgres = shared_log_postgres();
  static std::atomic<int> databases{0};
  const std::string database = "log" + std::to_string(++databases);
  postgres.sql("CREATE DATABASE " + database);
  return "  rocksdb:\n  postgres:\n    config:\n      conninfo: \"" + postgres.conninfo(database) +
         "\"\n      host_id: test-host\n";
}

}  // namespace

std::string shared_log_sql(const ServerProcess& server, const std::string& statement) {
  const std::string config = read_file(server.config_path());
  const std::string name = "dbname=";
  const auto at = config.find(name);
  if (!shared_log_mode() || at == std::string::npos) {
    throw std::logic_error("the server does not keep its writes in the shared log");
  }
  const auto from = at + name.size();
  const auto to = config.find_first_of(" \"", from);
  return shared_log_postgres().sql(statement, config.substr(from, to - from));
}

std::string default_plugins() {
  // Named as the instances are: the plugin of that name, of whichever kind has one.
  std::string plugins =
      "  apikey:\n" + storage_plugin() + "  hashing:\n  documents:\n  decision:\n";
  for (const char* op : {"count", "distinct", "sum", "avg", "min", "max", "integral"}) {
    plugins += std::string("  ") + op + ":\n";
  }
  return plugins;
}

std::string TestConfig::yaml() const {
  return "server:\n" + server + "limits:\n" + limits + "plans:\n" + plans + "plugins:\n" +
         (plugins.empty() ? default_plugins() : plugins) + other;
}

std::string with_storage_config(std::string plugins, const std::string& config) {
  const std::string storage = "  rocksdb:\n";
  plugins.replace(plugins.find(storage), storage.size(), storage + "    config:\n" + config);
  return plugins;
}

std::string test_config() {
  return TestConfig{}.yaml();
}

}  // namespace eventsvc::testing
