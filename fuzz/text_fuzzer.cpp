// The search syntax (words, prefixes, "phrases", -exclusions) and the tokenizer it matches
// against: text always matches a query made of its own words.
#include "eventsvc/toolkit/text.hpp"
#include "fuzz_input.hpp"

using namespace eventsvc;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  try {
    const std::vector<std::string> tokens = toolkit::tokenize(text);
    toolkit::fold_case(text);
    const sdk::TextQuery query = toolkit::parse_text_query(text);
    toolkit::text_matches(query, tokens);
    if (!tokens.empty()) {
      const sdk::TextQuery own = toolkit::parse_text_query(tokens.front());
      if (!own.empty() && !toolkit::text_matches(own, tokens)) {
        fuzz::defect("text does not match its own first word", tokens.front());
      }
    }
  } catch (const sdk::Error& error) {
    fuzz::require_client_error(error);
  }
  return 0;
}
