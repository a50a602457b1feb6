#include "api/pending_endpoint.hpp"

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

ApiResponse PendingEndpoint::handle(const ApiRequest&) {
  throw sdk::Error::unavailable(
      std::string(operation_name(traits_.operation)) + " is not available on this server yet", 60);
}

}  // namespace eventsvc::host
