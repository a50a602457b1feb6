#include "api/routes.hpp"

#include <memory>

#include "api/analyze_endpoint.hpp"
#include "api/erasure_endpoint.hpp"
#include "api/export_endpoint.hpp"
#include "api/fields_endpoint.hpp"
#include "api/ingest_endpoint.hpp"
#include "api/query_endpoint.hpp"
#include "api/receipt_endpoint.hpp"
#include "api/search_endpoint.hpp"
#include "api/tail_endpoint.hpp"

namespace eventsvc::host {

Router build_routes(const HostConfig& config, ModuleRegistry& modules, HostMetrics& metrics,
                    ErasureLedger& ledger, const CursorSeal& seal) {
  Router router;
  router.add("POST", "/v1/events",
             std::make_shared<IngestEndpoint>(config, modules.storage(), metrics));
  router.add("GET", "/v1/receipts/{receiptId}",
             std::make_shared<ReceiptEndpoint>(config, modules.storage()));
  router.add("POST", "/v1/search",
             std::make_shared<SearchEndpoint>(config, modules.storage(), seal));
  router.add("POST", "/v1/query", std::make_shared<QueryEndpoint>(config, modules.storage(), seal));
  router.add("POST", "/v1/analyze", std::make_shared<AnalyzeEndpoint>(config, modules, seal));
  router.add("POST", "/v1/exports",
             std::make_shared<ExportEndpoint>(config, modules.storage(), seal));
  router.add("GET", "/v1/fields", std::make_shared<FieldsEndpoint>(config, modules.storage()));
  router.add("GET", "/v1/tail", std::make_shared<TailEndpoint>(config, modules.storage(), seal));
  router.add("POST", "/v1/erasures",
             std::make_shared<EraseEndpoint>(config, modules.storage(), modules.audit(), &ledger));
  router.add("GET", "/v1/erasures/{erasureId}",
             std::make_shared<ErasureStatusEndpoint>(config, modules.storage()));
  return router;
}

}  // namespace eventsvc::host
