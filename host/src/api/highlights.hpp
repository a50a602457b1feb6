// Search highlights: for each record value that contains a query term, the field path, a short
// fragment of the text around the first match, and the terms it matched.
#pragma once

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/record.hpp"
#include "eventsvc/toolkit/text.hpp"

namespace eventsvc::host {

inline constexpr std::size_t kMaxHighlights = 5;
inline constexpr std::size_t kFragmentBytes = 160;

// [{field, fragment, terms}], at most kMaxHighlights, in record order.
sdk::json::array highlights(const sdk::Record& record, const sdk::TextQuery& query);

}  // namespace eventsvc::host
