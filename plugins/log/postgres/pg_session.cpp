#include "pg_session.hpp"

#include <endian.h>
#include <libpq-fe.h>
#include <poll.h>

#include <cstring>

namespace eventsvc::plugins::log {

namespace {

constexpr Oid kTextOid = 25;
constexpr Oid kByteaOid = 17;
constexpr Oid kInt8Oid = 20;

std::string trimmed(const char* message) {
  std::string text = message == nullptr ? "" : message;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  return text;
}

}  // namespace

PgParam PgParam::int8(std::int64_t value) {
  const std::uint64_t big = htobe64(static_cast<std::uint64_t>(value));
  std::string bytes(sizeof(big), '\0');
  std::memcpy(bytes.data(), &big, sizeof(big));
  return {Kind::int8, std::move(bytes)};
}

PgResult::PgResult(pg_result* result) : result_(result) {}

PgResult::~PgResult() {
  if (result_ != nullptr) PQclear(result_);
}

PgResult::PgResult(PgResult&& other) noexcept : result_(other.result_) {
  other.result_ = nullptr;
}

int PgResult::rows() const {
  return PQntuples(result_);
}

bool PgResult::is_null(int row, int column) const {
  return PQgetisnull(result_, row, column) == 1;
}

std::string_view PgResult::bytes(int row, int column) const {
  return {PQgetvalue(result_, row, column),
          static_cast<std::size_t>(PQgetlength(result_, row, column))};
}

std::int64_t PgResult::int8(int row, int column) const {
  const auto value = bytes(row, column);
  std::uint64_t big = 0;
  if (value.size() != sizeof(big)) throw PgError("a result column is not 8 bytes", {}, false);
  std::memcpy(&big, value.data(), sizeof(big));
  return static_cast<std::int64_t>(be64toh(big));
}

bool PgResult::boolean(int row, int column) const {
  const auto value = bytes(row, column);
  return !value.empty() && value[0] != 0;
}

std::uint64_t PgResult::affected() const {
  const char* count = PQcmdTuples(result_);
  return count == nullptr || *count == '\0' ? 0 : std::stoull(count);
}

namespace {

// Defaults the operator's connection string overrides: a peer that vanished is noticed within
// seconds, not the two hours of the system's keepalive.
constexpr const char* kKeywords[] = {"keepalives_idle",  "keepalives_interval",
                                     "keepalives_count", "connect_timeout",
                                     "dbname",           nullptr};

pg_conn* connect_to(const std::string& conninfo) {
  const char* values[] = {"5", "2", "3", "5", conninfo.c_str(), nullptr};
  return PQconnectdbParams(kKeywords, values, 1);
}

}  // namespace

PgSession::PgSession(const std::string& conninfo) : connection_(connect_to(conninfo)) {
  if (PQstatus(connection_) != CONNECTION_OK) {
    const std::string message = trimmed(PQerrorMessage(connection_));
    PQfinish(connection_);
    connection_ = nullptr;
    throw PgError("cannot connect to PostgreSQL: " + message, {}, true);
  }
  // A session of ours never sits in a transaction: one that does belongs to a server that died
  // mid-write, and it would hold every reader's horizon and its claims until it is ended. Waiting
  // for another write's claims is bounded too. (No statement timeout: cancelling a COMMIT that
  // waits for the standby reports it committed, which would be a 202 the standby may not have.)
  exec("SET idle_in_transaction_session_timeout = '10s'");
  exec("SET lock_timeout = '5s'");
}

PgSession::~PgSession() {
  if (connection_ != nullptr) PQfinish(connection_);
}

bool PgSession::good() const {
  return connection_ != nullptr && PQstatus(connection_) == CONNECTION_OK;
}

PgResult PgSession::exec(std::string_view sql, const std::vector<PgParam>& params) {
  std::vector<Oid> types;
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (const auto& param : params) {
    switch (param.kind) {
      case PgParam::Kind::text:
        types.push_back(kTextOid);
        break;
      case PgParam::Kind::bytes:
        types.push_back(kByteaOid);
        break;
      case PgParam::Kind::int8:
        types.push_back(kInt8Oid);
        break;
      case PgParam::Kind::null:
        types.push_back(0);
        break;
    }
    values.push_back(param.kind == PgParam::Kind::null ? nullptr : param.value.data());
    lengths.push_back(static_cast<int>(param.value.size()));
    formats.push_back(param.kind == PgParam::Kind::text ? 0 : 1);
  }
  const std::string statement(sql);
  pg_result* result = PQexecParams(connection_, statement.c_str(), static_cast<int>(params.size()),
                                   types.data(), values.data(), lengths.data(), formats.data(), 1);
  const auto status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) fail("statement failed", result);
  return PgResult(result);
}

bool PgSession::wait_for_notification(int timeout_ms) {
  const auto drain = [&] {
    bool any = false;
    while (PGnotify* notice = PQnotifies(connection_)) {
      any = true;
      PQfreemem(notice);
    }
    return any;
  };
  if (drain()) return true;
  pollfd socket{PQsocket(connection_), POLLIN, 0};
  if (::poll(&socket, 1, timeout_ms) > 0) {
    if (PQconsumeInput(connection_) == 0) fail("the connection failed", nullptr);
    return drain();
  }
  if (!good()) fail("the connection failed", nullptr);
  return false;
}

void PgSession::fail(const std::string& what, pg_result* result) {
  std::string sqlstate;
  std::string message;
  if (result != nullptr) {
    const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    sqlstate = state == nullptr ? "" : state;
    message = trimmed(PQresultErrorMessage(result));
    PQclear(result);
  }
  if (message.empty()) message = trimmed(PQerrorMessage(connection_));
  const bool lost = PQstatus(connection_) != CONNECTION_OK;
  throw PgError("PostgreSQL: " + what + ": " + message, sqlstate, lost);
}

}  // namespace eventsvc::plugins::log
