// Request bodies as JSON, and the canonical form (RFC 8785) that digests are computed over: the
// canonical text of any accepted value parses back to the same canonical text. (Not to the same
// value: RFC 8785 writes every number as an IEEE double, so integers past 2^53 round.)
#include "eventsvc/toolkit/digest.hpp"
#include "fuzz_input.hpp"

using namespace eventsvc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto value = fuzz::as_json(fuzz::as_text(data, size));
  if (!value) return 0;
  std::string canonical;
  try {
    canonical = sdk::canonical_json(*value);
  } catch (const sdk::Error& error) {
    fuzz::require_client_error(error);
    return 0;
  }
  const auto reparsed = fuzz::as_json(canonical);
  if (!reparsed) fuzz::defect("canonical JSON does not parse", canonical);
  if (sdk::canonical_json(*reparsed) != canonical) fuzz::defect("JCS not idempotent", canonical);
  sdk::to_json(*value);
  return 0;
}
