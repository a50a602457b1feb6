#include "log/log_scrub.hpp"

#include <algorithm>
#include <vector>

#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::string write_without(std::string_view write, const ErasedOfReceipt& erased) {
  AcceptedWrite accepted = decode_accepted_write(write);
  std::erase_if(accepted.events, [&](const AcceptedEvent& event) {
    return erased.contains({event.version.occurred_at, event.version.id});
  });
  return encode_accepted_write(accepted);
}

std::string receipt_without(std::string_view receipt, const ErasedOfReceipt& erased) {
  StoredReceipt stored = decode_receipt(receipt);
  std::erase_if(stored.events, [&](const sdk::EventVersion& version) {
    return erased.contains({version.occurred_at, version.id});
  });
  return encode_receipt(stored);
}

void scrub_log_entries(sdk::DurableLog& log, const std::string& tenant,
                       const std::map<std::string, ErasedOfReceipt>& by_receipt) {
  if (by_receipt.empty()) return;
  std::vector<std::string> receipts;
  receipts.reserve(by_receipt.size());
  for (const auto& entry : by_receipt)
    receipts.push_back(entry.first);
  log.scrub_entries(
      tenant, receipts,
      [&](std::string_view receipt_id, std::string_view write,
          std::string_view receipt) -> sdk::DurableLog::ScrubbedEntry {
        const auto found = by_receipt.find(std::string(receipt_id));
        if (found == by_receipt.end()) return {std::string(write), std::string(receipt)};
        return {write_without(write, found->second), receipt_without(receipt, found->second)};
      });
}

}  // namespace eventsvc::plugins::rocksdb_storage
