#include "support/postgres_process.hpp"

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "support/child_process.hpp"

namespace eventsvc::testing {

namespace {

std::string pg_binary(const std::string& name) {
  return std::string(EVENTSVC_PG_BIN) + "/" + name;
}

// Runs a PostgreSQL program, as the `postgres` user when this process is root, and waits; throws
// with its output when it fails.
std::string run_pg(const std::filesystem::path& dir, const std::string& program,
                   std::vector<std::string> args) {
  std::string binary = pg_binary(program);
  if (::geteuid() == 0) {
    args.insert(args.begin(),
                {"--reuid=postgres", "--regid=postgres", "--init-groups", "--", binary});
    binary = "/usr/bin/setpriv";
  }
  const auto out = dir / (program + ".out");
  const int code = wait_for(spawn_process(binary, args, out, out, false));
  std::string text = read_file(out);
  if (code != 0)
    throw std::runtime_error(program + " failed (" + std::to_string(code) + "):\n" + text);
  return text;
}

}  // namespace

PostgresProcess::PostgresProcess() : port_(free_loopback_port()) {
  prepare_directory();
  run_pg(dir_.path(), "initdb",
         {"-D", data().string(), "-U", "eventsvc", "--auth=trust", "-E", "UTF8", "--no-sync"});
  start();
}

PostgresProcess::PostgresProcess(StandbyOf standby) : port_(free_loopback_port()) {
  prepare_directory();
  run_pg(dir_.path(), "pg_basebackup",
         {"-h", "127.0.0.1", "-p", std::to_string(standby.primary.port()), "-U", "eventsvc", "-D",
          data().string(), "-R", "-X", "stream", "--no-sync"});
  start();
}

void PostgresProcess::prepare_directory() {
  ::chmod(dir_.path().c_str(), 0755);
  std::filesystem::create_directories(data());
  if (::geteuid() == 0) {
    const passwd* user = ::getpwnam("postgres");
    if (user == nullptr) throw std::runtime_error("no postgres user: install postgresql-15");
    ::chown(dir_.path().c_str(), user->pw_uid, user->pw_gid);
    ::chown(data().c_str(), user->pw_uid, user->pw_gid);
  }
  ::chmod(data().c_str(), 0700);
}

PostgresProcess::~PostgresProcess() {
  try {
    run_pg(dir_.path(), "pg_ctl", {"-D", data().string(), "-m", "immediate", "-w", "stop"});
  } catch (const std::exception&) {
    // Not running.
  }
}

std::string PostgresProcess::conninfo(const std::string& database) const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " user=eventsvc dbname=" + database +
         " connect_timeout=2";
}

void PostgresProcess::start() {
  const std::string options =
      "-p " + std::to_string(port_) +
      " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + data().string();
  // After a crash the old server's children may hold its shared memory for a moment.
  for (int attempt = 0;; ++attempt) {
    try {
      run_pg(dir_.path(), "pg_ctl",
             {"-D", data().string(), "-l", (data() / "server.log").string(), "-o", options, "-w",
              "-t", "60", "start"});
      return;
    } catch (const std::runtime_error& error) {
      if (attempt == 50) {
        throw std::runtime_error(std::string(error.what()) + read_file(data() / "server.log"));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
}

void PostgresProcess::crash() {
  std::ifstream pid_file(data() / "postmaster.pid");
  pid_t pid = 0;
  pid_file >> pid;
  if (pid <= 0) throw std::runtime_error("PostgreSQL is not running");
  ::kill(pid, SIGKILL);
  // Not our child: gone once its parent reaps it (a parent that never does leaves a zombie).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (::kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

void PostgresProcess::require_synchronous_standby() {
  sql("ALTER SYSTEM SET synchronous_standby_names = '*'");
  sql("SELECT pg_reload_conf()");
  // Until a standby is synchronous, commits wait for one.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (sql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") != "1") {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("no synchronous standby: " +
                               sql("SELECT application_name, state, sync_state FROM "
                                   "pg_stat_replication"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void PostgresProcess::promote() {
  run_pg(dir_.path(), "pg_ctl", {"-D", data().string(), "-w", "promote"});
}

std::string PostgresProcess::sql(const std::string& statement, const std::string& database) const {
  const auto out = dir_.path() / "psql.out";
  const int code =
      wait_for(spawn_process(pg_binary("psql"),
                             {"-h", "127.0.0.1", "-p", std::to_string(port_), "-U", "eventsvc",
                              "-d", database, "-At", "-v", "ON_ERROR_STOP=1", "-c", statement},
                             out, out, false));
  std::string text = read_file(out);
  if (code != 0) throw std::runtime_error("psql failed: " + text);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  return text;
}

}  // namespace eventsvc::testing
