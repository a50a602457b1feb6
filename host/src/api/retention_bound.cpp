#include "api/retention_bound.hpp"

#include <string>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

void check_retention(std::string_view bound, sdk::Millis at, sdk::Millis horizon,
                     int retention_days) {
  if (at >= horizon) return;
  const std::string earliest = toolkit::format_rfc3339(horizon);
  throw sdk::Error::forbidden(std::string(bound) + " " + toolkit::format_rfc3339(at) +
                                  " is beyond the plan's retention of " +
                                  std::to_string(retention_days) + " days (earliest: " + earliest +
                                  ")",
                              {{"retention_days", retention_days}, {"earliest", earliest}});
}

}  // namespace eventsvc::host
