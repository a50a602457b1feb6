// A real PostgreSQL 15 server for a test: a fresh cluster (initdb) in a temporary directory,
// started on a free loopback port with trust authentication for user `eventsvc`. Run as the
// `postgres` user when the test runs as root (PostgreSQL refuses root). crash() is SIGKILL of the
// postmaster, as a machine failure would be.
#pragma once

#include <filesystem>
#include <string>

#include "support/temp_dir.hpp"

namespace eventsvc::testing {

class PostgresProcess {
 public:
  PostgresProcess();  // initialised and started, or throws with its log
  // A hot standby of `primary` (pg_basebackup -R), started and streaming from it.
  struct StandbyOf {
    const PostgresProcess& primary;
  };
  explicit PostgresProcess(StandbyOf standby);
  ~PostgresProcess();
  PostgresProcess(const PostgresProcess&) = delete;
  PostgresProcess& operator=(const PostgresProcess&) = delete;

  int port() const { return port_; }
  // libpq connection string of a database (`postgres`, the one initdb made, unless named).
  std::string conninfo(const std::string& database = "postgres") const;

  void start();
  void crash();  // SIGKILL of the postmaster; its children exit when they notice
  // A primary's commits wait until a standby has them (synchronous_standby_names '*').
  void require_synchronous_standby();
  void promote();  // a standby becomes the primary (pg_ctl promote)
  // psql -At -c `sql` in `database`: what it printed, trimmed; throws when it fails.
  std::string sql(const std::string& sql, const std::string& database = "postgres") const;

 private:
  std::filesystem::path data() const { return dir_.path() / "pg"; }
  void prepare_directory();
  TempDir dir_;
  int port_ = 0;
};

}  // namespace eventsvc::testing
