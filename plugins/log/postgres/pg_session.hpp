// One connection to PostgreSQL through libpq, for the shared durable log: statements with
// parameters, results read in binary, and errors that say whether the connection is still good.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace eventsvc::plugins::log {

// A statement failed. `sqlstate` is PostgreSQL's code ("40001", "23505"; empty when the connection
// failed before the server answered); `connection_lost` says the session is unusable now and the
// outcome of a COMMIT that was under way is unknown.
class PgError : public std::runtime_error {
 public:
  PgError(const std::string& message, std::string sqlstate, bool connection_lost)
      : std::runtime_error(message),
        sqlstate_(std::move(sqlstate)),
        connection_lost_(connection_lost) {}
  const std::string& sqlstate() const { return sqlstate_; }
  bool connection_lost() const { return connection_lost_; }

 private:
  std::string sqlstate_;
  bool connection_lost_;
};

// A parameter: text, or bytes sent as bytea, or a 64-bit integer; null when absent.
struct PgParam {
  enum class Kind : std::uint8_t { text, bytes, int8, null };
  static PgParam text(std::string_view value) { return {Kind::text, std::string(value)}; }
  static PgParam bytes(std::string_view value) { return {Kind::bytes, std::string(value)}; }
  static PgParam int8(std::int64_t value);
  static PgParam null() { return {Kind::null, {}}; }
  Kind kind = Kind::null;
  std::string value;  // int8: 8 bytes, big-endian
};

// A result whose columns came back in binary.
class PgResult {
 public:
  explicit PgResult(pg_result* result);
  ~PgResult();
  PgResult(PgResult&& other) noexcept;
  PgResult& operator=(PgResult&&) = delete;
  PgResult(const PgResult&) = delete;

  int rows() const;
  bool is_null(int row, int column) const;
  std::string_view bytes(int row, int column) const;  // bytea, text
  std::int64_t int8(int row, int column) const;       // int8, xid8 (as its bits)
  bool boolean(int row, int column) const;
  std::uint64_t affected() const;  // rows an INSERT/UPDATE/DELETE touched

 private:
  pg_result* result_;
};

class PgSession {
 public:
  // Connects (libpq's connection string: "host=... dbname=..." or a postgresql:// URI). Throws
  // PgError.
  explicit PgSession(const std::string& conninfo);
  ~PgSession();
  PgSession(const PgSession&) = delete;
  PgSession& operator=(const PgSession&) = delete;

  PgResult exec(std::string_view sql, const std::vector<PgParam>& params = {});
  bool good() const;  // the connection is open and not in a failed state

  // LISTEN support: waits up to `timeout_ms` for a notification on a channel this session
  // listens on; true when one (or more) came. Throws PgError when the connection fails.
  bool wait_for_notification(int timeout_ms);

 private:
  [[noreturn]] void fail(const std::string& what, pg_result* result);
  pg_conn* connection_;
};

}  // namespace eventsvc::plugins::log
