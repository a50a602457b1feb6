// Whole POST /v1/events, /v1/search, /v1/query and /v1/erasures requests, through their endpoints'
// own validation and planning down to a storage that holds nothing (the first input byte picks the
// endpoint; the rest is the body). Whatever the body, the answer is a success or a 4xx.
#include <optional>

#include "api/erasure_endpoint.hpp"
#include "api/ingest_endpoint.hpp"
#include "api/query_endpoint.hpp"
#include "api/search_endpoint.hpp"
#include "empty_storage.hpp"
#include "fuzz_input.hpp"
#include "metrics/host_metrics.hpp"

using namespace eventsvc;

namespace {

struct Endpoints {
  Endpoints()
      : storage_module{&storage, "storage plugin 'empty'"},
        principal(fuzz::fuzz_principal({std::string(sdk::kScopeRead), std::string(sdk::kScopeWrite),
                                        std::string(sdk::kScopeErase)})) {
    plan.name = "default";
    head.method = "POST";
    head.headers = {{"Idempotency-Key", "fuzz-write-0001"}, {"Content-Type", "application/json"}};
  }

  fuzz::EmptyStorage storage;
  host::Module<sdk::Storage> storage_module;
  host::Module<sdk::AuditSink> no_audit;
  host::HostConfig config;
  host::HostMetrics metrics;
  host::Plan plan;
  sdk::Principal principal;
  host::RequestHead head;
  host::IngestEndpoint ingest{config, storage_module, metrics};
  host::CursorSeal seal{std::string(32, 'f')};
  host::SearchEndpoint search{config, storage_module, seal};
  host::QueryEndpoint query{config, storage_module, seal};
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
