// The text of an API key: <word>_<live|test>_<32 base62 characters>. The first 8 secret characters
// are the key's public id.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "eventsvc/sdk/principal.hpp"

namespace eventsvc::plugins::apikey {

inline constexpr std::size_t kSecretLength = 32;
inline constexpr std::size_t kIdLength = 8;

struct ParsedKey {
  std::string_view word;
  sdk::Environment environment;
  std::string_view secret;
  std::string_view id() const { return secret.substr(0, kIdLength); }
};

// nullopt unless the text has exactly that shape.
std::optional<ParsedKey> parse_api_key(std::string_view text);

// A new key with a secret from the CSPRNG.
std::string generate_api_key(std::string_view word, sdk::Environment environment);

// Whether `word` can prefix keys: 1-16 lowercase letters and digits, starting with a letter.
bool valid_key_word(std::string_view word);

}  // namespace eventsvc::plugins::apikey
