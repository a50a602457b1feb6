#include "eventsvc/sdk/text_query.hpp"

#include <algorithm>

namespace eventsvc::sdk {

std::vector<std::string> TextQuery::scoring_terms() const {
  std::vector<std::string> terms = words;
  for (const auto& phrase : phrases)
    terms.insert(terms.end(), phrase.begin(), phrase.end());
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  return terms;
}

}  // namespace eventsvc::sdk
