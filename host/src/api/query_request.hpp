// The body of a query (POST /v1/query) and of an export (POST /v1/exports), which reads the same
// records: validated, with the history and retention rules applied, as a storage read.
#pragma once

#include <vector>

#include "config/host_config.hpp"
#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::host {

struct QueryRequest {
  sdk::RecordQuery read;  // its limit is the body's (0 for an export)
  std::vector<sdk::FieldPath> fields;
};

enum class QueryShape {
  query,   // limit 1-1000 (default 100), order default desc
  export_  // no limit: every match; order default asc
};

// 400 naming every problem; 403 for a bound beyond the plan's retention. Time expressions are
// evaluated at `now`.
QueryRequest parse_query_request(const sdk::json::value& body, QueryShape shape, const Plan& plan,
                                 sdk::Millis now);

}  // namespace eventsvc::host
