// The final verification state of each receipt's write, which every record of that write carries
// (DESIGN §3): kept in the verdicts column family after the receipt itself expires. Final states
// never change, so they are cached.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "store/database.hpp"
#include "eventsvc/sdk/record.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class Verdicts {
 public:
  explicit Verdicts(Database& database) : database_(database) {}

  // pending until the receipt's verification finished.
  sdk::Verification of(std::string_view tenant, std::string_view receipt_id);

  static std::string encode(sdk::Verification verification);

 private:
  static constexpr std::size_t kMaxCached = 1 << 18;

  Database& database_;
  std::mutex mutex_;
  std::unordered_map<std::string, sdk::Verification> cache_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
