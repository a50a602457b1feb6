// What every Context Pack mode (sdk/context_mode.hpp) does alike: the token estimate, the
// freshness of the records, and cells served from decoded records.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/context_mode.hpp"
#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

using sdk::ContextInput;
using sdk::Record;

// Serves `cells` and `load` from `matches`, already decoded (rows numbered as `matches`), and
// `input.scan_complete` as it is now.
void serve_cells_from_records(ContextInput& input, std::vector<const Record*> matches);

// The token estimate every mode uses: ceil(UTF-8 bytes of the compact JSON / 4), the JSON being
// what the answer carries (to_json).
std::size_t estimate_tokens(const json::value& value);
std::size_t estimate_tokens_of_json_text(std::size_t json_bytes);

// How fresh `records` are: {newest_timestamp (RFC 3339, null without records), stale (now minus
// the newest is over `expected_ms`, or there are none)}. No lag: a pack depends on the time of the
// request only through `stale`. The analyze answer's `freshness.matched` and a pack's `freshness`
// both say this of the matched records, so they agree.
json::object records_freshness(const std::vector<const Record*>& records, Millis expected_ms,
                               Millis now);
// The same given the newest timestamp of the records (nullopt: there are none).
json::object freshness_of_newest(std::optional<Millis> newest, Millis expected_ms, Millis now);

// Sets `context[member]` to the token estimate of the whole `context`, that member included, and
// returns it. (The count's own digits are part of what it counts.)
std::size_t settle_token_count(json::object& context, std::string_view member);

}  // namespace eventsvc::toolkit
