#include "api_key.hpp"

#include <openssl/rand.h>

#include <array>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::plugins::apikey {

namespace {

constexpr std::string_view kAlphabet =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

bool is_base62(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

}  // namespace

bool valid_key_word(std::string_view word) {
  if (word.empty() || word.size() > 16 || word.front() < 'a' || word.front() > 'z') return false;
  for (const char c : word) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

std::optional<ParsedKey> parse_api_key(std::string_view text) {
  const std::size_t first = text.find('_');
  if (first == std::string_view::npos) return std::nullopt;
  const std::size_t second = text.find('_', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  ParsedKey key{text.substr(0, first), sdk::Environment::test, text.substr(second + 1)};
  const auto environment = sdk::parse_environment(text.substr(first + 1, second - first - 1));
  if (!environment || !valid_key_word(key.word) || key.secret.size() != kSecretLength) {
    return std::nullopt;
  }
  for (const char c : key.secret) {
    if (!is_base62(c)) return std::nullopt;
  }
  key.environment = *environment;
  return key;
}

std::string generate_api_key(std::string_view word, sdk::Environment environment) {
  std::string secret;
  secret.reserve(kSecretLength);
  std::array<unsigned char, 64> random{};
  while (secret.size() < kSecretLength) {
    if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1) {
      throw sdk::Error::internal("the random number generator failed");
    }
    for (const unsigned char byte : random) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && secret.size() < kSecretLength) secret.push_back(kAlphabet[byte % 62]);
    }
  }
  return std::string(word) + "_" + std::string(sdk::environment_name(environment)) + "_" + secret;
}

}  // namespace eventsvc::plugins::apikey
