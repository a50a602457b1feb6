// A parsed `text` search (DESIGN §5), as the host hands it to storage: every word, prefix and
// phrase must match, no exclusion may. The toolkit's text.hpp parses it, tokenizes records and
// decides what matches.
//   disk full            -> words {disk, full}
//   "disk full"          -> phrase {disk, full}
//   10.0.0.1             -> phrase {10, 0, 0, 1} (a term that tokenizes into several tokens)
//   -debug               -> excluded {debug}
//   disk*                -> prefixes {disk}
// A query needs at least one word, phrase or prefix.
#pragma once

#include <string>
#include <vector>

namespace eventsvc::sdk {

struct TextQuery {
  std::vector<std::string> words;
  std::vector<std::string> prefixes;
  std::vector<std::vector<std::string>> phrases;
  std::vector<std::vector<std::string>> excluded;  // each a word or a phrase

  bool empty() const { return words.empty() && prefixes.empty() && phrases.empty(); }
  // Every token that contributes to a match and its score: words and phrase words.
  std::vector<std::string> scoring_terms() const;
};

}  // namespace eventsvc::sdk
