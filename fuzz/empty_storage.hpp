// What fuzz targets that drive endpoints share: a storage that accepts every write and erasure
// (rendering their answers as the real storage would) and finds nothing, and the caller.
#pragma once

#include <optional>

#include "eventsvc/sdk/principal.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/aggregate_accumulator.hpp"
#include "eventsvc/toolkit/cells.hpp"

namespace eventsvc::fuzz {

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
  // An empty change feed: every position is before the first version.
  sdk::ChangePosition change_head(const sdk::Tenant&) override { return {}; }
  sdk::ChangeScan changes(const sdk::Tenant&, const sdk::ChangeQuery& query,
                          const sdk::ChangeVisitor&) override {
    sdk::ChangeScan scan;
    scan.last.bytes = query.after;
    scan.at_end = true;
    return scan;
  }
};

// The caller every endpoint target is: workspace "fuzz" (test) on plan "default", with `scopes`.
inline sdk::Principal fuzz_principal(std::vector<std::string> scopes) {
  sdk::Principal principal;
  principal.tenant = {"fuzz", sdk::Environment::test};
  principal.scopes = std::move(scopes);
  principal.plan = "default";
  return principal;
}

}  // namespace eventsvc::fuzz
