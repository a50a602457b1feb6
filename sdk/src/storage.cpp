#include "eventsvc/sdk/storage.hpp"

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::sdk {

std::string_view receipt_state_name(ReceiptState state) {
  switch (state) {
    case ReceiptState::accepted:
      return "accepted";
    case ReceiptState::projecting:
      return "projecting";
    case ReceiptState::verified:
      return "verified";
    case ReceiptState::conflict:
      return "conflict";
    case ReceiptState::verification_unavailable:
      return "verification-unavailable";
  }
  return "accepted";
}

std::string_view erasure_state_name(ErasureState state) {
  switch (state) {
    case ErasureState::accepted:
      return "accepted";
    case ErasureState::hidden:
      return "hidden";
    case ErasureState::purged:
      return "purged";
    case ErasureState::failed:
      return "failed";
  }
  return "accepted";
}

AcceptResult Storage::erase(const ErasureRequest& /*request*/, const ErasureRenderer& /*render*/) {
  throw Error(501, "this server's storage plugin cannot erase events");
}

std::optional<ErasureStatus> Storage::erasure(const Tenant& /*tenant*/,
                                              std::string_view /*erasure_id*/) {
  return std::nullopt;
}

std::optional<ScanStats> Storage::scan_json(const Tenant& /*tenant*/, const RecordQuery& /*query*/,
                                            const RecordJsonVisitor& /*visit*/) {
  return std::nullopt;
}

ChangePosition Storage::change_head(const Tenant& /*tenant*/) {
  throw Error(501, "this server's storage plugin keeps no change feed: it cannot tail");
}

ChangeScan Storage::changes(const Tenant& tenant, const ChangeQuery& /*query*/,
                            const ChangeVisitor& /*visit*/) {
  change_head(tenant);
  return {};
}

// Out-of-line destructors: they anchor each class's vtable and type_info in the SDK library, so
// host and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and
// exception matching work across the boundary.
Storage::~Storage() = default;

}  // namespace eventsvc::sdk
