#include "api/page_cursor.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

#include "api/request_ids.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "keys/secret_file.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

constexpr std::string_view kVersion = "c1.";
constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (at(i) << 16U) | (at(i + 1) << 8U) | at(i + 2);
    for (const unsigned shift : {18U, 12U, 6U, 0U})
      out.push_back(kAlphabet[(v >> shift) & 63U]);
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = at(i) << 16U;
    out.push_back(kAlphabet[(v >> 18U) & 63U]);
    out.push_back(kAlphabet[(v >> 12U) & 63U]);
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (at(i) << 16U) | (at(i + 1) << 8U);
    for (const unsigned shift : {18U, 12U, 6U})
      out.push_back(kAlphabet[(v >> shift) & 63U]);
  }
  return out;
}

std::optional<std::string> from_base64url(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (const char c : text) {
    const auto index = kAlphabet.find(c);
    if (index == std::string_view::npos) return std::nullopt;
    buffer = (buffer << 6U) | static_cast<unsigned>(index);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> static_cast<unsigned>(bits)) & 0xFFU));
    }
  }
  return out;
}

sdk::Error not_a_cursor(std::string message) {
  return sdk::Error::bad_request(
      std::move(message),
      {{"errors",
        json::array{json::object{{"path", "?cursor"}, {"message", "is not valid here"}}}}});
}

json::object statistics_json(const sdk::RankStatistics& statistics) {
  json::object frequencies;
  for (const auto& [token, documents] : statistics.frequencies)
    frequencies[token] = documents;
  return {{"d", statistics.documents}, {"l", statistics.length}, {"f", std::move(frequencies)}};
}

// The payload's members before the position: {"r":…,"t":…,"b":…,"n":…,"e":…, (open, ending in a
// comma).
std::string payload_head(const PageCursor& cursor) {
  json::object members{{"r", cursor.read},
                       {"t", cursor.tenant},
                       {"b", cursor.request},
                       {"n", cursor.now},
                       {"e", cursor.expires_at}};
  if (!cursor.feed_until.empty()) members["fu"] = cursor.feed_until;
  std::string head = sdk::to_json(members);
  head.back() = ',';
  return head;
}

// The rest: the position, the statistics when given, and the closing brace.
std::string payload_tail(const sdk::ReadPosition& after, const sdk::RankStatistics* statistics) {
  std::string tail = R"("s":)";
  tail += sdk::to_json(json::value(after.score));
  tail += R"(,"ts":)";
  tail += std::to_string(after.timestamp);
  tail += R"(,"id":)";
  tail += sdk::to_json(json::string(after.id));
  if (statistics != nullptr) {
    tail += R"(,"st":)";
    tail += sdk::to_json(statistics_json(*statistics));
  }
  tail.push_back('}');
  return tail;
}

std::shared_ptr<const sdk::RankStatistics> statistics_of(const json::object& object) {
  auto statistics = std::make_shared<sdk::RankStatistics>();
  statistics->documents = object.at("d").to_number<std::uint64_t>();
  statistics->length = object.at("l").to_number<std::uint64_t>();
  for (const auto& [token, documents] : object.at("f").as_object())
    statistics->frequencies.emplace(std::string(token), documents.to_number<std::uint64_t>());
  return statistics;
}

}  // namespace

std::string tenant_digest(const sdk::Tenant& tenant) {
  return toolkit::sha256_hex(tenant.workspace + "\n" +
                             std::string(sdk::environment_name(tenant.environment)))
      .substr(0, 32);
}

std::string request_digest(const json::value& body) {
  return toolkit::sha256_hex(sdk::canonical_json(body)).substr(0, 32);
}

CursorSeal CursorSeal::from_file(const std::filesystem::path& path) {
  return CursorSeal(load_or_create_secret(path, "the cursor key"));
}

std::string CursorSeal::mac(std::string_view signed_part) const {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
           reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size(),
           digest.data(), &length) == nullptr) {
    throw sdk::Error::internal("cannot sign a cursor");
  }
  return std::string(reinterpret_cast<const char*>(digest.data()), length);
}

std::string CursorSeal::seal(const PageCursor& cursor) const {
  std::string text(kVersion);
  text += base64url(payload_head(cursor) + payload_tail(cursor.after, cursor.statistics.get()));
  const std::string signature = mac(text);
  text.push_back('.');
  text += base64url(signature);
  return text;
}

PageCursor CursorSeal::open(std::string_view text, std::string_view read, const sdk::Tenant& tenant,
                            std::string_view request, sdk::Millis now) const {
  const auto dot = text.rfind('.');
  if (!text.starts_with(kVersion) || dot == std::string_view::npos || dot < kVersion.size()) {
    throw not_a_cursor(
        "the cursor is not one this service issued; send the request without a cursor for its "
        "first page");
  }
  const auto signature = from_base64url(text.substr(dot + 1));
  const std::string expected = mac(text.substr(0, dot));
  if (!signature || signature->size() != expected.size() ||
      CRYPTO_memcmp(signature->data(), expected.data(), expected.size()) != 0) {
    throw not_a_cursor(
        "the cursor was altered or was not issued by this service (its signature does not match)");
  }
  PageCursor cursor;
  try {
    const auto payload = from_base64url(text.substr(kVersion.size(), dot - kVersion.size()));
    if (!payload) throw std::runtime_error("payload");
    const json::object object = sdk::parse_json(*payload).as_object();
    cursor.read = object.at("r").as_string();
    cursor.tenant = object.at("t").as_string();
    cursor.request = object.at("b").as_string();
    cursor.now = object.at("n").to_number<sdk::Millis>();
    cursor.expires_at = object.at("e").to_number<sdk::Millis>();
    cursor.after.score = object.at("s").to_number<double>();
    cursor.after.timestamp = object.at("ts").to_number<sdk::Millis>();
    cursor.after.id = object.at("id").as_string();
    if (const auto* until = object.if_contains("fu")) cursor.feed_until = until->as_string();
    if (const auto* statistics = object.if_contains("st")) {
      cursor.statistics = statistics_of(statistics->as_object());
    }
  } catch (const std::exception&) {
    throw not_a_cursor("the cursor cannot be read");
  }
  if (cursor.read != read) {
    throw not_a_cursor("the cursor was issued for /v1/" + cursor.read + ", not /v1/" +
                       std::string(read));
  }
  if (cursor.tenant != tenant_digest(tenant)) {
    throw not_a_cursor("the cursor was issued to another workspace or environment");
  }
  if (cursor.request != request) {
    throw not_a_cursor(
        "the cursor was issued for a different request body; send the same body with it");
  }
  if (now >= cursor.expires_at) {
    throw sdk::Error(410,
                     "the cursor expired at " + toolkit::format_rfc3339(cursor.expires_at) +
                         "; run the request again without a cursor",
                     {{"expired_at", toolkit::format_rfc3339(cursor.expires_at)}});
  }
  return cursor;
}

struct PositionSealer::MacState {
  EVP_MAC* mac = nullptr;
  EVP_MAC_CTX* context = nullptr;
  ~MacState() {
    EVP_MAC_CTX_free(context);
    EVP_MAC_free(mac);
  }
};

PositionSealer::PositionSealer(const CursorSeal& seal, const PageCursor& common)
    : mac_(std::make_unique<MacState>()) {
  // The payload's members up to the position, padded with spaces (JSON whitespace) to a multiple
  // of three bytes: its base64 is then the start of every payload's base64.
  std::string prefix = payload_head(common);
  while (prefix.size() % 3 != 0)
    prefix.push_back(' ');
  sealed_prefix_ = std::string(kVersion) + base64url(prefix);

  mac_->mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  mac_->context = mac_->mac != nullptr ? EVP_MAC_CTX_new(mac_->mac) : nullptr;
  char digest[] = "SHA256";
  const OSSL_PARAM parameters[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_END};
  const auto* key = reinterpret_cast<const unsigned char*>(seal.key_.data());
  if (mac_->context == nullptr ||
      EVP_MAC_init(mac_->context, key, seal.key_.size(), parameters) != 1 ||
      EVP_MAC_update(mac_->context, reinterpret_cast<const unsigned char*>(sealed_prefix_.data()),
                     sealed_prefix_.size()) != 1) {
    throw sdk::Error::internal("cannot sign cursors");
  }
}

PositionSealer::~PositionSealer() = default;

std::string PositionSealer::seal(const sdk::ReadPosition& after) const {
  std::string text = sealed_prefix_ + base64url(payload_tail(after, nullptr));

  std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> context(EVP_MAC_CTX_dup(mac_->context),
                                                                    &EVP_MAC_CTX_free);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  std::size_t length = 0;
  const auto* tail = reinterpret_cast<const unsigned char*>(text.data() + sealed_prefix_.size());
  if (!context || EVP_MAC_update(context.get(), tail, text.size() - sealed_prefix_.size()) != 1 ||
      EVP_MAC_final(context.get(), digest.data(), &length, digest.size()) != 1) {
    throw sdk::Error::internal("cannot sign a cursor");
  }
  text.push_back('.');
  text += base64url(std::string_view(reinterpret_cast<const char*>(digest.data()), length));
  return text;
}

}  // namespace eventsvc::host
