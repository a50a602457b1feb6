// Whole POST /v1/events, /v1/search, /v1/query and /v1/erasures requests, through their endpoints'
// own validation and planning down to a storage that holds nothing (the first input byte picks the
// endpoint; the rest is the body). Whatever the body, the answer is a success or a 4xx.
#include <optional>

#include "api/erasure_endpoint.hpp"
#include "api/ingest_endpoint.hpp"
#include "api/query_endpoint.hpp"
#include "api/search_endpoint.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/aggregate_accumulator.hpp"
#include "eventsvc/toolkit/cells.hpp"
#include "fuzz_input.hpp"
#include "metrics/host_metrics.hpp"

using namespace eventsvc;

namespace {

// Accepts every write (rendering its receipt as the real storage would) and finds nothing.
class EmptyStorage final : public sdk::Storage {
 public:
  void use_embedder(const sdk::Embedder*) override {}
  void use_log(sdk::DurableLog*) override {}
  sdk::AcceptResult accept(const sdk::IncomingWrite& write,
                           const sdk::ReceiptRenderer& render) override {
    sdk::AcceptSummary summary;
    summary.receipt_id = write.receipt_id;
    summary.submitted = write.events.size();
    summary.accepted = write.events.size();
    return {render(summary), false};
  }
  std::optional<sdk::Receipt> receipt(const sdk::Tenant&, std::string_view) override {
    return std::nullopt;
  }
  sdk::ScanStats scan(const sdk::Tenant&, const sdk::RecordQuery&,
                      const sdk::RecordVisitor&) override {
    return {};
  }
  sdk::AggregateResult aggregate(const sdk::Tenant& tenant,
                                 const sdk::AggregateRequest& request) override {
    return toolkit::aggregate_by_scanning(*this, tenant, request);
  }
  sdk::ScanStats scan_cells(const sdk::Tenant& tenant, const sdk::CellQuery& query,
                            const sdk::CellVisitor& visit) override {
    return toolkit::scan_cells_by_records(*this, tenant, query, visit);
  }
  sdk::Neighbors neighbors(const sdk::Tenant&, sdk::Source, const sdk::Record&, std::size_t,
                           std::size_t, sdk::Millis) override {
    return {};
  }
  sdk::StorageStatus status(const sdk::Tenant&) override { return {}; }
  sdk::AcceptResult erase(const sdk::ErasureRequest& request,
                          const sdk::ErasureRenderer& render) override {
    sdk::ErasureStatus status;
    status.erasure_id = request.erasure_id;
    status.accepted_at = request.received_at;
    return {render(status), false};
  }
  sdk::StorageHealth health() override { return {}; }
};

struct Endpoints {
  Endpoints() : storage_module{&storage, "storage plugin 'empty'"} {
    plan.name = "default";
    principal.tenant = {"fuzz", sdk::Environment::test};
    principal.scopes = {std::string(sdk::kScopeRead), std::string(sdk::kScopeWrite),
                        std::string(sdk::kScopeErase)};
    principal.plan = "default";
    head.method = "POST";
    head.headers = {{"Idempotency-Key", "fuzz-write-0001"}, {"Content-Type", "application/json"}};
  }

  EmptyStorage storage;
  host::Module<sdk::Storage> storage_module;
  host::Module<sdk::AuditSink> no_audit;
  host::HostConfig config;
  host::HostMetrics metrics;
  host::Plan plan;
  sdk::Principal principal;
  host::RequestHead head;
  host::IngestEndpoint ingest{config, storage_module, metrics};
  host::SearchEndpoint search{config, storage_module};
  host::QueryEndpoint query{config, storage_module};
  host::EraseEndpoint erase{config, storage_module, no_audit, nullptr};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Endpoints endpoints;
  if (size == 0) return 0;
  host::Endpoint* const by_first_byte[] = {&endpoints.ingest, &endpoints.search, &endpoints.query,
                                           &endpoints.erase};
  host::Endpoint* endpoint = by_first_byte[data[0] % 4];
  const host::ApiRequest request{
      endpoints.principal, endpoints.plan, endpoints.head, fuzz::as_text(data + 1, size - 1), {},
      fuzz::kNow};
  try {
    const host::ApiResponse response = endpoint->handle(request);
    if (response.status >= 300) fuzz::defect("an answer that is not a success", response.body);
  } catch (const sdk::Error& error) {
    fuzz::require_client_error(error);
  }
  return 0;
}
