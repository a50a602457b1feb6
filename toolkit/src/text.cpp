#include "eventsvc/toolkit/text.hpp"

#include <Poco/Unicode.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "eventsvc/toolkit/field_walk.hpp"
#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

namespace {

// Decodes one UTF-8 code point at `i`; returns its length, 0 when the bytes are not valid UTF-8.
std::size_t decode(std::string_view text, std::size_t i, char32_t& cp) {
  const auto c = static_cast<unsigned char>(text[i]);
  std::size_t len = 0;
  char32_t min = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  if ((c & 0xE0U) == 0xC0U) {
    cp = c & 0x1FU;
    len = 2;
    min = 0x80;
  } else if ((c & 0xF0U) == 0xE0U) {
    cp = c & 0x0FU;
    len = 3;
    min = 0x800;
  } else if ((c & 0xF8U) == 0xF0U) {
    cp = c & 0x07U;
    len = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (std::size_t j = 1; j < len; ++j) {
    const auto next = static_cast<unsigned char>(text[i + j]);
    if ((next & 0xC0U) != 0x80U) return 0;
    cp = (cp << 6U) | (next & 0x3FU);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

void encode(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0U | (cp >> 6U)));
    out.push_back(static_cast<char>(0x80U | (cp & 0x3FU)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0U | (cp >> 12U)));
    out.push_back(static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU)));
    out.push_back(static_cast<char>(0x80U | (cp & 0x3FU)));
  } else {
    out.push_back(static_cast<char>(0xF0U | (cp >> 18U)));
    out.push_back(static_cast<char>(0x80U | ((cp >> 12U) & 0x3FU)));
    out.push_back(static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU)));
    out.push_back(static_cast<char>(0x80U | (cp & 0x3FU)));
  }
}

enum class CharClass { separator, word, ideograph };

CharClass classify(char32_t cp) {
  Poco::Unicode::CharacterProperties props{};
  Poco::Unicode::properties(static_cast<int>(cp), props);
  switch (props.category) {
    case Poco::Unicode::UCP_LETTER:
    case Poco::Unicode::UCP_NUMBER:
    case Poco::Unicode::UCP_MARK:
      break;
    default:
      return CharClass::separator;
  }
  if (props.script == Poco::Unicode::UCP_HAN || props.script == Poco::Unicode::UCP_HIRAGANA ||
      props.script == Poco::Unicode::UCP_KATAKANA) {
    return CharClass::ideograph;
  }
  return CharClass::word;
}

char32_t lower(char32_t cp) {
  return static_cast<char32_t>(Poco::Unicode::toLower(static_cast<int>(cp)));
}

bool contains_sequence(const std::vector<std::string>& tokens,
                       const std::vector<std::string>& sequence) {
  if (sequence.empty() || sequence.size() > tokens.size()) return false;
  return std::search(tokens.begin(), tokens.end(), sequence.begin(), sequence.end()) !=
         tokens.end();
}

}  // namespace

void for_each_token(std::string_view text, const std::function<void(std::string_view)>& emit) {
  std::string token;
  bool truncated = false;
  auto flush = [&] {
    if (!token.empty()) emit(token);
    token.clear();
    truncated = false;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {  // ASCII fast path
      ++i;
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
        if (token.size() < kMaxTokenBytes && !truncated) token.push_back(static_cast<char>(c));
      } else if (c >= 'A' && c <= 'Z') {
        if (token.size() < kMaxTokenBytes && !truncated) token.push_back(static_cast<char>(c + 32));
      } else {
        flush();
      }
      continue;
    }
    char32_t cp = 0;
    const std::size_t len = decode(text, i, cp);
    if (len == 0) {
      flush();
      ++i;
      continue;
    }
    i += len;
    switch (classify(cp)) {
      case CharClass::separator:
        flush();
        break;
      case CharClass::ideograph: {
        flush();
        std::string single;
        encode(lower(cp), single);
        emit(single);
        break;
      }
      case CharClass::word: {
        std::string encoded;
        encode(lower(cp), encoded);
        if (token.size() + encoded.size() <= kMaxTokenBytes && !truncated) {
          token += encoded;
        } else {
          truncated = true;
        }
        break;
      }
    }
  }
  flush();
}

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> out;
  for_each_token(text, [&](std::string_view token) { out.emplace_back(token); });
  return out;
}

std::string fold_case(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    char32_t cp = 0;
    const std::size_t len = decode(text, i, cp);
    if (len == 0) {
      out.push_back(text[i]);
      ++i;
      continue;
    }
    encode(lower(cp), out);
    i += len;
  }
  return out;
}

TextQuery parse_text_query(std::string_view text) {
  TextQuery query;
  std::size_t i = 0;
  auto add_term = [&](std::string_view term, bool excluded, bool prefix) {
    auto tokens = tokenize(term);
    if (tokens.empty()) return;
    if (excluded) {
      query.excluded.push_back(std::move(tokens));
    } else if (prefix) {
      query.prefixes.push_back(tokens.back());
      tokens.pop_back();
      if (tokens.size() == 1) query.words.push_back(tokens.front());
      if (tokens.size() > 1) query.phrases.push_back(std::move(tokens));
    } else if (tokens.size() == 1) {
      query.words.push_back(std::move(tokens.front()));
    } else {
      query.phrases.push_back(std::move(tokens));
    }
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    bool excluded = false;
    if (c == '-') {
      excluded = true;
      ++i;
      if (i >= text.size()) break;
    }
    if (text[i] == '"') {
      const std::size_t close = text.find('"', i + 1);
      const std::size_t end = close == std::string_view::npos ? text.size() : close;
      add_term(text.substr(i + 1, end - i - 1), excluded, false);
      i = end == text.size() ? end : end + 1;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '\n' &&
           text[end] != '\r') {
      ++end;
    }
    std::string_view term = text.substr(i, end - i);
    const bool prefix = !excluded && term.size() > 1 && term.back() == '*';
    if (prefix) term.remove_suffix(1);
    add_term(term, excluded, prefix);
    i = end;
  }
  auto dedupe = [](std::vector<std::string>& list) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  };
  dedupe(query.words);
  dedupe(query.prefixes);
  if (query.empty()) {
    throw Error::bad_request(
        "search text has no word to look for",
        {{"hint", "use words, \"phrases\" or prefix* terms; -word only excludes"}});
  }
  return query;
}

void for_each_text_field(
    const Record& record,
    const std::function<void(std::string_view path, std::string_view text)>& emit) {
  emit("id", record.id);
  emit("type", record.type);
  // Every key (as text of no path) and every string, below every key.
  const auto text = [&](const std::string& path, std::optional<std::string_view> key,
                        const json::value& value) {
    if (key) emit("", *key);
    if (value.is_string()) emit(path, value.get_string());
  };
  const auto below = [&](std::string path, const json::value& root) {
    if (root.is_string()) emit(path, root.get_string());
    for_each_field(path, root, text, FieldKeys::all);
  };
  below("payload", record.payload);
  below("metrics", record.metrics);
  std::string path = "attributes";
  for_each_member(path, record.attributes, text, FieldKeys::all);
}

std::vector<std::string> record_tokens(const Record& record) {
  std::vector<std::string> tokens;
  for_each_text_field(record, [&](std::string_view, std::string_view text) {
    for_each_token(text, [&](std::string_view token) { tokens.emplace_back(token); });
    tokens.emplace_back();  // field boundary
  });
  return tokens;
}

bool text_matches(const TextQuery& query, const std::vector<std::string>& tokens) {
  std::unordered_set<std::string_view> present;
  present.reserve(tokens.size());
  for (const auto& token : tokens) {
    if (!token.empty()) present.insert(token);
  }
  for (const auto& word : query.words) {
    if (!present.contains(word)) return false;
  }
  for (const auto& prefix : query.prefixes) {
    const bool found = std::any_of(present.begin(), present.end(), [&](std::string_view token) {
      return token.starts_with(prefix);
    });
    if (!found) return false;
  }
  for (const auto& phrase : query.phrases) {
    if (!contains_sequence(tokens, phrase)) return false;
  }
  for (const auto& excluded : query.excluded) {
    if (excluded.size() == 1 ? present.contains(excluded.front())
                             : contains_sequence(tokens, excluded)) {
      return false;
    }
  }
  return true;
}

double Bm25::idf(std::uint64_t documents, std::uint64_t document_frequency) {
  const double n = static_cast<double>(documents);
  const double df = static_cast<double>(std::min(document_frequency, documents));
  return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
}

double Bm25::term_score(double idf, std::uint32_t term_frequency, std::uint32_t document_length,
                        double average_length) const {
  if (term_frequency == 0) return 0;
  const double tf = term_frequency;
  const double norm = average_length > 0 ? document_length / average_length : 1.0;
  return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * norm));
}

}  // namespace eventsvc::toolkit
