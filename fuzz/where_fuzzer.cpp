// The `where` filter of query, search and analyze bodies.
#include "api/validation.hpp"
#include "api/where_parser.hpp"
#include "fuzz_input.hpp"

using namespace eventsvc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto where = fuzz::as_json(fuzz::as_text(data, size));
  if (!where) return 0;
  try {
    host::ValidationErrors errors;
    host::parse_where(*where, "/where", fuzz::kNow, errors);
    errors.throw_if_any();
  } catch (const sdk::Error& error) {
    fuzz::require_client_error(error);
  }
  return 0;
}
