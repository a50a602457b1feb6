// POST /v1/events (API-SPEC 4.1, DESIGN §4): validates the batch, computes the event digests and
// the integrity hash, and hands the write to storage, which answers only once it is durable.
#pragma once

#include "api/endpoint_base.hpp"
#include "metrics/host_metrics.hpp"

namespace eventsvc::host {

// Ingest bodies are limited to 1 MiB by the API contract (API-SPEC 4.1).
inline constexpr std::size_t kIngestBodyLimit = 1 << 20;

class IngestEndpoint final : public StorageEndpoint {
 public:
  IngestEndpoint(const HostConfig& config, const Module<sdk::Storage>& storage,
                 HostMetrics& metrics)
      : StorageEndpoint(config, storage), metrics_(metrics) {}

  Operation operation() const override { return Operation::ingest; }
  std::vector<std::string_view> scopes() const override { return {sdk::kScopeWrite}; }
  bool leased() const override { return false; }
  bool reports_concurrency() const override { return false; }
  std::size_t max_body_bytes() const override;
  ApiResponse handle(const ApiRequest& request) override;

 private:
  HostMetrics& metrics_;
};

// req_ + 16 lowercase hex from the CSPRNG.
std::string new_receipt_id();

// Where a receipt is polled: public_base_url (when configured) + /v1/receipts/<id>.
std::string verify_url(const HostConfig& config, std::string_view receipt_id);

}  // namespace eventsvc::host
