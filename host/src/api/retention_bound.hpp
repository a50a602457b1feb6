// How far back a key's plan lets it read, and the one 403 every read (query, analyze, search,
// fields, tail) answers when a request reaches past it.
#pragma once

#include <string_view>

#include "config/host_config.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::host {

// The earliest timestamp a plan's keys may see: now minus the plan's retention.
inline sdk::Millis retention_horizon(const Plan& plan, sdk::Millis now) {
  return now - plan.retention_ms();
}

// 403 when `at` lies before `horizon`: "<bound> <at> is beyond the plan's retention of <n> days
// (earliest: <horizon>)", with retention_days and earliest in its data. `bound` names what the
// request set ("from", "since", "where.timestamp lower bound").
void check_retention(std::string_view bound, sdk::Millis at, sdk::Millis horizon,
                     int retention_days);

}  // namespace eventsvc::host
