// The erasure ledger: every erasure this server accepted, one JSON line each, fsync'd before its
// 202, in a file of its own (`erasure_ledger`, docs/operators.md) that backups do not hold. A
// backup restored later is older than the erasures made since it was taken; `eventsvc restore`
// carries out again the ledger's erasures the backup does not know (reapply_erasures.hpp), so that
// restoring last week's backup does not bring back a person erased yesterday.
#pragma once

#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/principal.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::host {

// One erasure as the ledger keeps it: enough to make the same request again.
struct LedgerEntry {
  std::string erasure_id;
  sdk::Tenant tenant;
  std::string idempotency_key;
  std::string key_id;
  sdk::Millis received_at = 0;
  sdk::json::value request;  // the body as submitted
};

class ErasureLedger {
 public:
  // Reads what the file holds (a line cut short by a crash is ignored); creates it when absent
  // (mode 0600). Throws sdk::Error 500 naming the file when it cannot.
  explicit ErasureLedger(std::filesystem::path path);

  // Appends the erasure unless the ledger has it already (a replay of its key), and makes it
  // durable. Throws sdk::Error 503 when the file cannot be written.
  void record(const LedgerEntry& entry);

  // Every erasure of the ledger at `path`, oldest first; none when there is no file.
  static std::vector<LedgerEntry> read(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::mutex mutex_;
  std::set<std::string, std::less<>> recorded_;  // erasure ids
};

}  // namespace eventsvc::host
