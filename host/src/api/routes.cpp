#include "api/routes.hpp"

#include <memory>

#include "api/pending_endpoint.hpp"

namespace eventsvc::host {

Router build_routes(const HostConfig& config, ModuleRegistry&) {
  using sdk::kScopeRead;
  using sdk::kScopeWrite;
  Router router;
  router.add("POST", "/v1/events",
             std::make_shared<PendingEndpoint>(
                 EndpointTraits{Operation::ingest, {kScopeWrite}, false, false, kIngestBodyLimit}));
  router.add("GET", "/v1/receipts/{receiptId}",
             std::make_shared<PendingEndpoint>(
                 EndpointTraits{Operation::receipts, {kScopeRead, kScopeWrite}, true, false, 0}));
  router.add("POST", "/v1/search",
             std::make_shared<PendingEndpoint>(EndpointTraits{
                 Operation::search, {kScopeRead}, true, true, config.max_body_bytes}));
  router.add("POST", "/v1/query",
             std::make_shared<PendingEndpoint>(EndpointTraits{
                 Operation::query, {kScopeRead}, true, true, config.max_body_bytes}));
  router.add("POST", "/v1/analyze",
             std::make_shared<PendingEndpoint>(EndpointTraits{
                 Operation::analyze, {kScopeRead}, true, true, config.max_body_bytes}));
  return router;
}

}  // namespace eventsvc::host
