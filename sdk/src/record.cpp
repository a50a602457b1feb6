#include "eventsvc/sdk/record.hpp"

namespace eventsvc::sdk {

std::string_view verification_name(Verification verification) {
  switch (verification) {
    case Verification::pending:
      return "pending";
    case Verification::verified:
      return "verified";
    case Verification::conflict:
      return "conflict";
  }
  return "pending";
}

}  // namespace eventsvc::sdk
