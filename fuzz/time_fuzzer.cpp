// Times as requests write them: RFC 3339 instants, durations, and time expressions ("now-7d").
// An instant that parses formats and parses back to itself.
#include <string>

#include "eventsvc/toolkit/time.hpp"
#include "fuzz_input.hpp"

using namespace eventsvc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  try {
    if (const auto instant = toolkit::parse_rfc3339(text)) {
      const std::string formatted = toolkit::format_rfc3339(*instant);
      const auto again = toolkit::parse_rfc3339(formatted);
      if (!again || *again != *instant) fuzz::defect("RFC 3339 round trip", formatted);
    }
    toolkit::parse_duration(text);
    toolkit::parse_time_expression(text, fuzz::kNow);
  } catch (const sdk::Error& error) {
    fuzz::require_client_error(error);
  }
  return 0;
}
