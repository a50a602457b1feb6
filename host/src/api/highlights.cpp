#include "api/highlights.hpp"

#include <algorithm>
#include <set>

#include "eventsvc/toolkit/text.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

// Moves `position` back to the start of a UTF-8 character.
std::size_t char_start(std::string_view text, std::size_t position) {
  while (position > 0 && position < text.size() &&
         (static_cast<unsigned char>(text[position]) & 0xC0U) == 0x80U) {
    --position;
  }
  return position;
}

}  // namespace

json::array highlights(const sdk::Record& record, const sdk::TextQuery& query) {
  const auto terms = query.scoring_terms();
  json::array out;
  toolkit::for_each_text_field(record, [&](std::string_view path, std::string_view text) {
    if (path.empty() || out.size() >= kMaxHighlights) return;  // keys are searched, not shown
    std::set<std::string> matched;
    toolkit::for_each_token(text, [&](std::string_view token) {
      const bool term = std::binary_search(terms.begin(), terms.end(), token);
      const bool prefix = std::any_of(query.prefixes.begin(), query.prefixes.end(),
                                      [&](const std::string& p) { return token.starts_with(p); });
      if (term || prefix) matched.emplace(token);
    });
    if (matched.empty()) return;
    // Fragment around the first matched term (case-folded search in the folded text).
    const std::string folded = toolkit::fold_case(text);
    std::size_t first = std::string::npos;
    for (const auto& token : matched)
      first = std::min(first, folded.find(token));
    std::string fragment(text);
    if (text.size() > kFragmentBytes && first != std::string::npos &&
        folded.size() == text.size()) {
      std::size_t begin = first > kFragmentBytes / 4 ? first - kFragmentBytes / 4 : 0;
      begin = char_start(text, begin);
      const std::size_t end = char_start(text, std::min(text.size(), begin + kFragmentBytes));
      fragment = (begin > 0 ? "…" : "") + std::string(text.substr(begin, end - begin)) +
                 (end < text.size() ? "…" : "");
    } else if (text.size() > kFragmentBytes) {
      fragment = std::string(text.substr(0, char_start(text, kFragmentBytes))) + "…";
    }
    json::array terms_array;
    for (const auto& token : matched)
      terms_array.emplace_back(token);
    out.emplace_back(
        json::object{{"field", path}, {"fragment", fragment}, {"terms", std::move(terms_array)}});
  });
  return out;
}

}  // namespace eventsvc::host
