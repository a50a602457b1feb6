// Whole POST /v1/analyze bodies: every field, every bound.
#include "api/analyze_request_parser.hpp"
#include "api/validation.hpp"
#include "fuzz_input.hpp"

using namespace eventsvc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    // As the endpoint reads it: a JSON object, or a 400.
    const sdk::json::value body = host::parse_body(fuzz::as_text(data, size));
    host::ValidationErrors errors;
    host::parse_analyze_request(body, fuzz::kNow, errors);
    errors.throw_if_any();
  } catch (const sdk::Error& error) {
    fuzz::require_client_error(error);
  }
  return 0;
}
