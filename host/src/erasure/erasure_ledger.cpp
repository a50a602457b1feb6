#include "erasure/erasure_ledger.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

std::optional<LedgerEntry> entry_of(const std::string& line) {
  try {
    const json::value value = sdk::parse_json(line);
    const json::object& object = value.as_object();
    LedgerEntry entry;
    entry.erasure_id = object.at("erasure_id").as_string();
    entry.tenant.workspace = object.at("workspace").as_string();
    const auto environment = sdk::parse_environment(object.at("env").as_string());
    if (!environment) return std::nullopt;
    entry.tenant.environment = *environment;
    entry.idempotency_key = object.at("idempotency_key").as_string();
    entry.key_id = object.at("key_id").as_string();
    entry.received_at = object.at("received_at").to_number<sdk::Millis>();
    entry.request = object.at("request");
    return entry;
  } catch (const std::exception&) {
    return std::nullopt;  // a line a crash cut short
  }
}

}  // namespace

ErasureLedger::ErasureLedger(std::filesystem::path path) : path_(std::move(path)) {
  for (const auto& entry : read(path_))
    recorded_.insert(entry.erasure_id);
  std::error_code ec;
  std::filesystem::create_directories(path_.parent_path(), ec);
  const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw sdk::Error::internal("cannot open the erasure ledger " + path_.string());
  // A line a crash cut short is ended, so that the next one starts on a line of its own.
  char last = '\n';
  const off_t size = ::lseek(fd, 0, SEEK_END);
  const bool ended = size <= 0 || (::pread(fd, &last, 1, size - 1) == 1 && last == '\n') ||
                     ::write(fd, "\n", 1) == 1;
  ::close(fd);
  if (!ended) throw sdk::Error::internal("cannot write the erasure ledger " + path_.string());
}

void ErasureLedger::record(const LedgerEntry& entry) {
  const std::lock_guard lock(mutex_);
  if (recorded_.contains(entry.erasure_id)) return;
  std::string line =
      sdk::to_json(json::object{{"erasure_id", entry.erasure_id},
                                {"workspace", entry.tenant.workspace},
                                {"env", sdk::environment_name(entry.tenant.environment)},
                                {"idempotency_key", entry.idempotency_key},
                                {"key_id", entry.key_id},
                                {"received_at", entry.received_at},
                                {"request", entry.request}});
  line.push_back('\n');
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  bool written = fd >= 0;
  written = written && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  written = written && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!written) {
    throw sdk::Error::unavailable(
        "the erasure is durable but could not be written to the erasure ledger; retry with the "
        "same Idempotency-Key",
        5);
  }
  recorded_.insert(entry.erasure_id);
}

std::vector<LedgerEntry> ErasureLedger::read(const std::filesystem::path& path) {
  std::vector<LedgerEntry> entries;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (auto entry = entry_of(line)) entries.push_back(std::move(*entry));
  }
  return entries;
}

}  // namespace eventsvc::host
