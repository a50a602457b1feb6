#include "eventsvc/sdk/storage.hpp"

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

// Out-of-line destructors: they anchor each class's vtable and type_info in the SDK library, so
// host and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and
// exception matching work across the boundary.
Storage::~Storage() = default;

}  // namespace eventsvc::sdk
