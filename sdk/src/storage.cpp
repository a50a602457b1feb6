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

std::string_view source_name(Source source) {
  return source == Source::current ? "current" : "history";
}

}  // namespace eventsvc::sdk
