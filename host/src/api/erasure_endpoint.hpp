// POST /v1/erasures and GET /v1/erasures/{erasureId} (docs/api.md#erasure): a request to erase
// events by id or by condition, validated and handed to storage, which answers once it is durable;
// and its state, accepted -> hidden -> purged (or failed), polled by its id.
#pragma once

#include "api/endpoint_base.hpp"
#include "api/validation.hpp"
#include "erasure/erasure_ledger.hpp"
#include "eventsvc/sdk/audit.hpp"

namespace eventsvc::host {

inline constexpr std::size_t kMaxErasureIds = 10000;
// 10,000 ids of up to 1,024 bytes, as JSON.
inline constexpr std::size_t kErasureBodyLimit = 12 << 20;

class EraseEndpoint final : public StorageEndpoint {
 public:
  // `ledger`: where accepted erasures are recorded (null: nowhere, for tests of the parsing).
  EraseEndpoint(const HostConfig& config, const Module<sdk::Storage>& storage,
                const Module<sdk::AuditSink>& audit, ErasureLedger* ledger)
      : StorageEndpoint(config, storage), audit_(audit), ledger_(ledger) {}

  Operation operation() const override { return Operation::erasures; }
  std::vector<std::string_view> scopes() const override { return {sdk::kScopeErase}; }
  bool leased() const override { return false; }
  bool reports_concurrency() const override { return false; }
  std::size_t max_body_bytes() const override { return kErasureBodyLimit; }
  ApiResponse handle(const ApiRequest& request) override;

 private:
  // The erasure in the audit trail, whatever the audit plugin's sample rate.
  void audit(const ApiRequest& request, const json::value& body, std::string_view erasure_id,
             bool replayed) const;

  const Module<sdk::AuditSink>& audit_;
  ErasureLedger* ledger_;
};

class ErasureStatusEndpoint final : public StorageEndpoint {
 public:
  using StorageEndpoint::StorageEndpoint;

  Operation operation() const override { return Operation::erasures; }
  std::vector<std::string_view> scopes() const override { return {sdk::kScopeErase}; }
  bool leased() const override { return true; }
  bool reports_concurrency() const override { return false; }
  std::size_t max_body_bytes() const override { return 0; }
  ApiResponse handle(const ApiRequest& request) override;
};

// The erasure a body asks for, validated (Error 400 naming what is wrong); `now` resolves the
// time expressions of `where`.
sdk::ErasureRequest erasure_request_of(const json::value& body, const sdk::Tenant& tenant,
                                       sdk::Millis now);

// era_ + 16 lowercase hex from the CSPRNG.
std::string new_erasure_id();
// Where an erasure is polled: public_base_url (when configured) + /v1/erasures/<id>.
std::string erasure_url(const HostConfig& config, std::string_view erasure_id);
// The 202 of an erasure: the body storage keeps for its key's replays.
std::string erasure_receipt_body(const HostConfig& config, const sdk::ErasureStatus& status);
// The erasure as GET answers it.
json::object erasure_to_json(const HostConfig& config, const sdk::ErasureStatus& status);

}  // namespace eventsvc::host
