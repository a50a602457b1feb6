// A stored record: one version of an event as the projector wrote it (DESIGN §3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::sdk {

// The verification state of the write that stored a record. Decision-mode Context Packs admit
// only `verified` records.
enum class Verification : std::uint8_t { pending, verified, conflict };

std::string_view verification_name(Verification verification);

struct Record {
  std::string id;
  std::string type;
  std::string stream;
  std::optional<std::string> namespace_name;
  std::optional<std::string> site_id;
  std::optional<std::string> source_id;
  Millis timestamp = 0;    // occurred_at, millisecond precision
  Millis ingested_at = 0;  // when the write was durably accepted
  std::string receipt_id;
  std::uint64_t sequence = 0;  // acceptance order; later writes have larger numbers
  json::value payload;         // the event's `data`
  json::value metrics;         // the event's `metrics` when it was an object, else null
  json::object attributes;     // the event's other additional properties
  json::object envelope;       // the write batch's additional properties
  std::string proof_digest;    // the event digest (sha256-jcs)
  Verification verification = Verification::pending;
  std::vector<float> embedding;  // filled only when a query asks for it
};

}  // namespace eventsvc::sdk
