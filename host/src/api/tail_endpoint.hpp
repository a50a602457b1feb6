// GET /v1/tail: a live tail of the events a filter matches, as Server-Sent Events
// (tail/tail_stream.hpp, docs/api.md#tail). Charged as a query; it holds one of the key's tail
// leases (the plan's `tails`) for as long as it is open, not a concurrency lease.
#pragma once

#include "api/endpoint_base.hpp"
#include "tail/tail_hub.hpp"

namespace eventsvc::host {

class TailEndpoint final : public StorageEndpoint {
 public:
  TailEndpoint(const HostConfig& config, const Module<sdk::Storage>& storage,
               const CursorSeal& seal)
      : StorageEndpoint(config, storage), hub_(storage.plugin), seal_(seal) {}

  Operation operation() const override { return Operation::query; }
  std::vector<std::string_view> scopes() const override { return {sdk::kScopeRead}; }
  bool leased() const override { return true; }
  bool leases_a_tail() const override { return true; }
  bool reports_concurrency() const override { return false; }
  std::size_t max_body_bytes() const override { return 0; }
  ApiResponse handle(const ApiRequest& request) override;

 private:
  TailHub hub_;
  const CursorSeal& seal_;
};

}  // namespace eventsvc::host
