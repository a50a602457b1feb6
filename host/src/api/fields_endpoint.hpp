// GET /v1/fields (docs/api.md#fields): the fields the workspace's events have, with how many of the
// newest matching events have each and as which JSON types: what a client offers when someone
// writes a condition (a console's autocompletion). Read from a sample of the newest matches, as
// cells (Storage::scan_cells), so an engine with columns reads columns, not records.
#pragma once

#include "api/endpoint_base.hpp"

namespace eventsvc::host {

// Events a fields read samples by default, and at most.
inline constexpr std::size_t kFieldsDefaultSample = 10000;
inline constexpr std::size_t kFieldsMaxSample = 100000;
// Fields listed at most (the most common first).
inline constexpr std::size_t kFieldsListed = 1000;

class FieldsEndpoint final : public StorageEndpoint {
 public:
  using StorageEndpoint::StorageEndpoint;

  Operation operation() const override { return Operation::query; }
  std::vector<std::string_view> scopes() const override { return {sdk::kScopeRead}; }
  bool leased() const override { return true; }
  bool reports_concurrency() const override { return true; }
  std::size_t max_body_bytes() const override { return 0; }
  ApiResponse handle(const ApiRequest& request) override;
};

}  // namespace eventsvc::host
