// Parses and validates a POST /v1/analyze body (API-SPEC 4.5) into the analysis stages' request.
#pragma once

#include "analysis/analyze_request.hpp"
#include "api/validation.hpp"
#include "api/where_parser.hpp"

namespace eventsvc::host {

struct ParsedAnalyzeRequest {
  AnalyzeRequest analysis;
  ParsedWhere where;  // also the history lower bound the endpoint checks against retention
};

// Validates the body; every problem goes to `errors` with its path.
ParsedAnalyzeRequest parse_analyze_request(const json::value& body, sdk::Millis now,
                                           ValidationErrors& errors);

}  // namespace eventsvc::host
