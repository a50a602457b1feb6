#include "api/page_cursor.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

#include "api/cursor_codec.hpp"
#include "api/siphash.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "keys/secret_file.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

constexpr std::string_view kVersion = "c2.";
constexpr std::string_view kLineVersion = "c3.";
constexpr std::string_view kJsonVersion = "c1.";
// The MAC's first 16 bytes (128 bits) seal a c2 cursor; SipHash's 128 bits
// (SipHash128::kTagSize) a c3 cursor.
constexpr std::size_t kTagSize = 16;

sdk::Error not_a_cursor(std::string message) {
  return sdk::Error::bad_request(
      std::move(message),
      {{"errors",
        json::array{json::object{{"path", "?cursor"}, {"message", "is not valid here"}}}}});
}

sdk::Error not_issued_here() {
  return not_a_cursor(
      "the cursor is not one this service issued; send the request without a cursor for its "
      "first page");
}

sdk::Error altered() {
  return not_a_cursor(
      "the cursor was altered or was not issued by this service (its signature does not match)");
}

bool same_bytes(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// What a cursor opened for `read` of `tenant` with `request` must have been issued for.
void check_bound(const PageCursor& cursor, std::string_view read, std::string_view tenant,
                 std::string_view request) {
  if (cursor.read != read) {
    throw not_a_cursor("the cursor was issued for /v1/" + cursor.read + ", not /v1/" +
                       std::string(read));
  }
  if (cursor.tenant != tenant) {
    throw not_a_cursor("the cursor was issued to another workspace or environment");
  }
  if (cursor.request != request) {
    throw not_a_cursor(
        "the cursor was issued for a different request body; send the same body with it");
  }
}

}  // namespace

// SipHash-2-4 with a 128-bit output, keyed once (api/siphash.hpp).
class LineMac {
 public:
  explicit LineMac(std::string_view key) : hash_(key) {}

  // Appends the tag of `payload` to `out`.
  void append_tag(std::string_view payload, std::string& out) const {
    const SipHash128::Tag tag = hash_.tag(payload);
    out.append(reinterpret_cast<const char*>(tag.data()), tag.size());
  }

 private:
  SipHash128 hash_;
};

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

std::string CursorSeal::tag(std::string_view payload) const {
  return mac(std::string(kVersion) + std::string(payload)).substr(0, kTagSize);
}

std::string CursorSeal::line_key(std::string_view tenant, std::string_view request) const {
  std::string derivation(kLineVersion);
  derivation.append(tenant).append("\n").append(request);
  return mac(derivation).substr(0, SipHash128::kKeySize);
}

std::string CursorSeal::seal(const PageCursor& cursor) const {
  std::string payload = encode_cursor_head(cursor);
  append_cursor_position(cursor.after, cursor.statistics.get(), payload);
  payload += tag(payload);
  std::string text(kVersion);
  append_base64url(payload, text);
  return text;
}

PageCursor CursorSeal::unseal(std::string_view text) const {
  if (text.starts_with(kVersion)) {
    const auto bytes = from_base64url(text.substr(kVersion.size()));
    if (!bytes || bytes->size() <= kTagSize) throw not_issued_here();
    const std::string_view payload = std::string_view(*bytes).substr(0, bytes->size() - kTagSize);
    if (!same_bytes(std::string_view(*bytes).substr(payload.size()), tag(payload))) throw altered();
    return decode_cursor(payload);
  }
  const auto dot = text.rfind('.');
  if (!text.starts_with(kJsonVersion) || dot == std::string_view::npos ||
      dot < kJsonVersion.size()) {
    throw not_issued_here();
  }
  const auto signature = from_base64url(text.substr(dot + 1));
  if (!signature || !same_bytes(*signature, mac(text.substr(0, dot)))) throw altered();
  const auto payload = from_base64url(text.substr(kJsonVersion.size(), dot - kJsonVersion.size()));
  if (!payload) throw std::runtime_error("payload");
  return decode_json_cursor(*payload);
}

PageCursor CursorSeal::unseal_line(std::string_view text, std::string_view read,
                                   std::string_view tenant, std::string_view request) const {
  const auto bytes = from_base64url(text.substr(kLineVersion.size()));
  if (!bytes || bytes->size() <= SipHash128::kTagSize) throw not_issued_here();
  const std::string_view payload =
      std::string_view(*bytes).substr(0, bytes->size() - SipHash128::kTagSize);
  PageCursor cursor = decode_line_cursor(payload);
  // The hints say which binding differs; only with all three the same is the tag worth checking,
  // as the key it was made with is derived from the full digests.
  if (tenant.starts_with(cursor.tenant)) cursor.tenant = tenant;
  if (request.starts_with(cursor.request)) cursor.request = request;
  check_bound(cursor, read, tenant, request);
  std::string expected;
  LineMac(line_key(tenant, request)).append_tag(payload, expected);
  if (!same_bytes(std::string_view(*bytes).substr(payload.size()), expected)) throw altered();
  return cursor;
}

PageCursor CursorSeal::open(std::string_view text, std::string_view read, const sdk::Tenant& tenant,
                            std::string_view request, sdk::Millis now) const {
  const std::string bound_tenant = tenant_digest(tenant);
  PageCursor cursor;
  try {
    cursor = text.starts_with(kLineVersion) ? unseal_line(text, read, bound_tenant, request)
                                            : unseal(text);
  } catch (const sdk::Error&) {
    throw;
  } catch (const std::exception&) {
    throw not_a_cursor("the cursor cannot be read");
  }
  check_bound(cursor, read, bound_tenant, request);
  if (now >= cursor.expires_at) {
    throw sdk::Error(410,
                     "the cursor expired at " + toolkit::format_rfc3339(cursor.expires_at) +
                         "; run the request again without a cursor",
                     {{"expired_at", toolkit::format_rfc3339(cursor.expires_at)}});
  }
  return cursor;
}

PositionSealer::PositionSealer(const CursorSeal& seal, const PageCursor& common)
    : payload_(encode_line_head(common)),
      head_size_(payload_.size()),
      mac_(std::make_unique<LineMac>(seal.line_key(common.tenant, common.request))) {}

PositionSealer::~PositionSealer() = default;

void PositionSealer::seal(const sdk::ReadPosition& after, std::string& out) {
  payload_.resize(head_size_);
  append_cursor_position(after, nullptr, payload_);
  mac_->append_tag(payload_, payload_);  // the tag is made before it is appended
  out += kLineVersion;
  append_base64url(payload_, out);
}

std::string PositionSealer::seal(const sdk::ReadPosition& after) {
  std::string text;
  seal(after, text);
  return text;
}

}  // namespace eventsvc::host
