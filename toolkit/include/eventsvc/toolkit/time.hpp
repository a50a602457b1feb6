// Instants (sdk::Millis, Unix epoch milliseconds, UTC) read and written: timestamps are rendered
// as RFC 3339 UTC with millisecond precision, 2026-11-22T08:30:00.000Z.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

Millis now_millis();

// RFC 3339 date-time ("2026-11-22T08:30:00Z", "2026-11-22t08:30:00.123456+02:00"). Fractions
// beyond milliseconds are truncated. Years 0000-9999, in UTC too (an offset may not move the
// instant out of them). nullopt when the text is not one.
std::optional<Millis> parse_rfc3339(std::string_view text);

// "2026-11-22T08:30:00.000Z".
std::string format_rfc3339(Millis instant);
// The same text appended to `out`: answers write two instants per record, and a string of 24
// characters each is an allocation each.
void append_rfc3339(std::string& out, Millis instant);

// A duration: <n><unit> with unit ms, s, m, h, d or w ("15m", "24h"). nullopt when malformed or
// overflowing.
std::optional<Millis> parse_duration(std::string_view text);

// A time expression (DESIGN §5): an RFC 3339 date-time, "now", "now-<duration>" or
// "now+<duration>", resolved against `now`.
std::optional<Millis> parse_time_expression(std::string_view text, Millis now);

}  // namespace eventsvc::toolkit
