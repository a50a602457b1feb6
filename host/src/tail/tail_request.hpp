// The URL of a live tail (GET /v1/tail, docs/api.md#tail): its filter, which is an export's body
// (history, `where`, `fields`) written as URL parameters, and where it starts.
//
//   where      a `where` object as URL-encoded JSON (the conditions of query)
//   stream     events of this stream only (where.stream)
//   namespace  events of this namespace only (where.namespace)
//   fields     comma-separated field names: each event carries only these
//   since      `now` (the default), an event's id (resume right after it), or a time or time
//              expression within retention (from the first event made searchable then)
//   Last-Event-ID (header, as EventSource sends it when it reconnects): as since=<id>, over since
#pragma once

#include <optional>
#include <string>

#include "api/query_request.hpp"
#include "server/http_message.hpp"

namespace eventsvc::host {

struct TailRequest {
  // The export body the filter is: what a client that fell behind exports the missed events with.
  sdk::json::value body;
  QueryRequest filter;  // the body parsed: its where, with the retention horizon, and fields
  // Where the tail starts: after a position of the change feed, or at the first version made
  // searchable at or after an instant, or (neither) after the newest now.
  std::optional<std::string> after;
  std::optional<sdk::Millis> since;
};

// 400 naming the parameter for any problem, 403 for a `since` beyond the plan's retention.
TailRequest parse_tail_request(const RequestHead& head, const Plan& plan, sdk::Millis now);

// An event's id: its change-feed position in lowercase hex; "0" before the first event.
std::string tail_event_id(std::string_view position);
// The position an event id names; nullopt when it is not an event id.
std::optional<std::string> tail_position(std::string_view event_id);

}  // namespace eventsvc::host
