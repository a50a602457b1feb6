#include "erasure/reapply_erasures.hpp"

#include <chrono>
#include <thread>
#include <vector>

#include "api/erasure_endpoint.hpp"
#include "erasure/erasure_ledger.hpp"
#include "eventsvc/sdk/error.hpp"
#include "logging/log_sink.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

namespace {

constexpr auto kWaitAtMost = std::chrono::minutes(30);

}  // namespace

ReappliedErasures reapply_erasures(const HostConfig& config, const std::filesystem::path& ledger) {
  ReappliedErasures done;
  const auto entries = ErasureLedger::read(ledger);
  done.in_ledger = entries.size();
  if (entries.empty()) return done;

  LogSink log;
  log.set_level(sdk::LogLevel::warning);
  const auto modules = ModuleRegistry::load(config, log, ModuleRegistry::Selection::all);
  modules->start();
  struct Stop {
    ModuleRegistry& modules;
    ~Stop() { modules.stop(); }
  } stop{*modules};
  const auto& storage = modules->storage();
  // The body a retry of the erasure's key gets from the restored data, as from the server.
  const sdk::ErasureRenderer render = [&](const sdk::ErasureStatus& status) {
    return erasure_receipt_body(config, status);
  };

  std::vector<const LedgerEntry*> waiting;
  for (const auto& entry : entries) {
    const bool known = storage.call(
        [&](sdk::Storage& s) { return s.erasure(entry.tenant, entry.erasure_id).has_value(); });
    if (known) continue;
    sdk::ErasureRequest request =
        erasure_request_of(entry.request, entry.tenant, entry.received_at);
    request.idempotency_key = entry.idempotency_key;
    request.erasure_id = entry.erasure_id;
    request.key_id = entry.key_id;
    storage.call([&](sdk::Storage& s) { return s.erase(request, render); });
    waiting.push_back(&entry);
  }
  const auto deadline = std::chrono::steady_clock::now() + kWaitAtMost;
  for (const LedgerEntry* entry : waiting) {
    while (true) {
      const auto status = storage.call(
          [&](sdk::Storage& s) { return s.erasure(entry->tenant, entry->erasure_id); });
      if (status && status->state == sdk::ErasureState::failed) {
        throw sdk::Error::internal("the erasure " + entry->erasure_id +
                                   " of the ledger failed: " + status->reason);
      }
      if (status && status->state != sdk::ErasureState::accepted) break;
      if (std::chrono::steady_clock::now() > deadline) {
        throw sdk::Error::internal("the erasure " + entry->erasure_id +
                                   " of the ledger was not carried out within 30 minutes");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  done.reapplied = waiting.size();
  return done;
}

}  // namespace eventsvc::host
