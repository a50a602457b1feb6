#include "erasure/reapply_erasures.hpp"

#include <vector>

#include "api/erasure_endpoint.hpp"
#include "erasure/await_hidden.hpp"
#include "erasure/erasure_ledger.hpp"
#include "eventsvc/sdk/error.hpp"
#include "logging/log_sink.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

ReappliedErasures reapply_erasures(const HostConfig& config, const std::filesystem::path& ledger) {
  ReappliedErasures done;
  const auto entries = ErasureLedger::read(ledger);
  done.in_ledger = entries.size();
  if (entries.empty()) return done;

  LogSink log;
  log.set_level(sdk::LogLevel::warning);
  const StartedModules modules(ModuleRegistry::load(config, log, ModuleRegistry::Selection::all));
  const auto& storage = modules->storage();
  // The body a retry of the erasure's key gets from the restored data, as from the server.
  const sdk::ErasureRenderer render = [&](const sdk::ErasureStatus& status) {
    return erasure_receipt_body(config, status);
  };

  std::vector<MadeErasure> made;
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
    made.push_back({entry.tenant, entry.erasure_id});
  }
  await_hidden(storage, made);
  done.reapplied = made.size();
  return done;
}

}  // namespace eventsvc::host
