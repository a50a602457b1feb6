#include "api/cursor_codec.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>

#include "api/page_cursor.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/hex.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// A c3 cursor names its read by one byte.
constexpr std::array<std::string_view, 4> kReads = {"search", "query", "analyze", "exports"};
// The first bytes of the tenant and request digests a c3 cursor carries: enough to say which of
// them differs when a cursor comes back with another key or body (the MAC binds the full digests).
constexpr std::size_t kHintBytes = 3;

// Flags before the position.
constexpr unsigned kScored = 1U;      // a score follows (ranked reads)
constexpr unsigned kStatistics = 2U;  // statistics follow the id

[[noreturn]] void malformed() {
  throw std::runtime_error("malformed cursor payload");
}

void append_varint(std::uint64_t value, std::string& out) {
  while (value >= 0x80U) {
    out.push_back(static_cast<char>((value & 0x7FU) | 0x80U));
    value >>= 7U;
  }
  out.push_back(static_cast<char>(value));
}

// Signed numbers zigzagged: small magnitudes of either sign stay short.
void append_signed(std::int64_t value, std::string& out) {
  append_varint((static_cast<std::uint64_t>(value) << 1U) ^ static_cast<std::uint64_t>(value >> 63),
                out);
}

void append_text(std::string_view text, std::string& out) {
  append_varint(text.size(), out);
  out += text;
}

// Text behind its length; lowercase hex (digests, feed positions) as the bytes it spells, half the
// size, with the length's low bit telling which, so any text round-trips.
void append_packed(std::string_view text, std::string& out) {
  if (const auto bytes = toolkit::bytes_of_hex(text)) {
    append_varint(bytes->size() << 1U, out);
    out += *bytes;
    return;
  }
  append_varint((text.size() << 1U) | 1U, out);
  out += text;
}

class PayloadReader {
 public:
  explicit PayloadReader(std::string_view bytes) : bytes_(bytes) {}

  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      const auto byte = static_cast<unsigned char>(take(1)[0]);
      value |= static_cast<std::uint64_t>(byte & 0x7FU) << shift;
      if ((byte & 0x80U) == 0) return value;
    }
    malformed();
  }
  std::int64_t signed_number() {
    const std::uint64_t value = varint();
    return static_cast<std::int64_t>((value >> 1U) ^ (~(value & 1U) + 1));
  }
  std::string text() { return std::string(take(varint())); }
  std::string hex(std::size_t size) { return toolkit::hex_of(take(size)); }
  std::string packed() {
    const std::uint64_t header = varint();
    const std::string_view bytes = take(header >> 1U);
    if ((header & 1U) != 0) return std::string(bytes);
    return toolkit::hex_of(bytes);
  }
  double number() {
    const std::string_view bytes = take(8);
    std::uint64_t bits = 0;
    for (unsigned i = 0; i < 8; ++i)
      bits |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
    return std::bit_cast<double>(bits);
  }
  unsigned byte() { return static_cast<unsigned char>(take(1)[0]); }
  bool at_end() const { return at_ == bytes_.size(); }

 private:
  std::string_view take(std::uint64_t size) {
    if (size > bytes_.size() - at_) malformed();
    const std::string_view part = bytes_.substr(at_, size);
    at_ += size;
    return part;
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace

void append_base64url(std::string_view bytes, std::string& out) {
  // Written through a pointer into space made once: an export encodes a cursor per line.
  const std::size_t start = out.size();
  out.resize(start + (bytes.size() * 4 + 2) / 3);
  char* to = out.data() + start;
  auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (at(i) << 16U) | (at(i + 1) << 8U) | at(i + 2);
    *to++ = kAlphabet[(v >> 18U) & 63U];
    *to++ = kAlphabet[(v >> 12U) & 63U];
    *to++ = kAlphabet[(v >> 6U) & 63U];
    *to++ = kAlphabet[v & 63U];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = at(i) << 16U;
    *to++ = kAlphabet[(v >> 18U) & 63U];
    *to++ = kAlphabet[(v >> 12U) & 63U];
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (at(i) << 16U) | (at(i + 1) << 8U);
    *to++ = kAlphabet[(v >> 18U) & 63U];
    *to++ = kAlphabet[(v >> 12U) & 63U];
    *to++ = kAlphabet[(v >> 6U) & 63U];
  }
}

std::optional<std::string> from_base64url(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
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

namespace {

// What both forms carry after their bindings: the instants and the feed span.
void append_instants_and_span(const PageCursor& cursor, std::string& out) {
  append_signed(cursor.now, out);
  // Relative to `now`: a lifetime is a few bytes where an instant is six.
  append_signed(cursor.expires_at - cursor.now, out);
  append_packed(cursor.feed_until, out);
}

}  // namespace

std::string encode_cursor_head(const PageCursor& cursor) {
  std::string out;
  append_text(cursor.read, out);
  append_packed(cursor.tenant, out);
  append_packed(cursor.request, out);
  append_instants_and_span(cursor, out);
  return out;
}

void append_cursor_position(const sdk::ReadPosition& after, const sdk::RankStatistics* statistics,
                            std::string& out) {
  const bool scored = after.score != 0;
  out.push_back(static_cast<char>((scored ? kScored : 0U) | (statistics ? kStatistics : 0U)));
  if (scored) {
    const auto bits = std::bit_cast<std::uint64_t>(after.score);
    for (unsigned shift = 0; shift < 64; shift += 8)
      out.push_back(static_cast<char>((bits >> shift) & 0xFFU));
  }
  append_signed(after.timestamp, out);
  append_packed(after.id, out);
  if (statistics == nullptr) return;
  append_varint(statistics->documents, out);
  append_varint(statistics->length, out);
  append_varint(statistics->frequencies.size(), out);
  for (const auto& [token, documents] : statistics->frequencies) {
    append_text(token, out);
    append_varint(documents, out);
  }
}

std::string encode_line_head(const PageCursor& cursor) {
  const auto read = std::find(kReads.begin(), kReads.end(), cursor.read);
  if (read == kReads.end()) throw std::logic_error("no c3 code for the read " + cursor.read);
  std::string out(1, static_cast<char>(read - kReads.begin()));
  for (const auto& digest : {cursor.tenant, cursor.request}) {
    const auto bytes = toolkit::bytes_of_hex(digest);
    if (!bytes || bytes->size() < kHintBytes) throw std::logic_error("a digest is not hex");
    out.append(*bytes, 0, kHintBytes);
  }
  append_instants_and_span(cursor, out);
  return out;
}

namespace {

// The rest of either form: the instants, the feed span and the position, to the payload's end.
void read_instants_span_and_position(PayloadReader& in, PageCursor& cursor) {
  cursor.now = in.signed_number();
  cursor.expires_at = cursor.now + in.signed_number();
  cursor.feed_until = in.packed();
  const unsigned flags = in.byte();
  if ((flags & ~(kScored | kStatistics)) != 0) malformed();
  if ((flags & kScored) != 0) cursor.after.score = in.number();
  cursor.after.timestamp = in.signed_number();
  cursor.after.id = in.packed();
  if ((flags & kStatistics) != 0) {
    auto statistics = std::make_shared<sdk::RankStatistics>();
    statistics->documents = in.varint();
    statistics->length = in.varint();
    for (std::uint64_t n = in.varint(); n > 0; --n) {
      std::string token = in.text();
      statistics->frequencies.emplace(std::move(token), in.varint());
    }
    cursor.statistics = std::move(statistics);
  }
  if (!in.at_end()) malformed();
}

}  // namespace

PageCursor decode_cursor(std::string_view payload) {
  PayloadReader in(payload);
  PageCursor cursor;
  cursor.read = in.text();
  cursor.tenant = in.packed();
  cursor.request = in.packed();
  read_instants_span_and_position(in, cursor);
  return cursor;
}

PageCursor decode_line_cursor(std::string_view payload) {
  PayloadReader in(payload);
  PageCursor cursor;
  const unsigned read = in.byte();
  if (read >= kReads.size()) malformed();
  cursor.read = kReads.at(read);
  cursor.tenant = in.hex(kHintBytes);
  cursor.request = in.hex(kHintBytes);
  read_instants_span_and_position(in, cursor);
  return cursor;
}

PageCursor decode_json_cursor(std::string_view payload) {
  const json::object object = sdk::parse_json(payload).as_object();
  PageCursor cursor;
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
    const json::object& members = statistics->as_object();
    auto read = std::make_shared<sdk::RankStatistics>();
    read->documents = members.at("d").to_number<std::uint64_t>();
    read->length = members.at("l").to_number<std::uint64_t>();
    for (const auto& [token, documents] : members.at("f").as_object())
      read->frequencies.emplace(std::string(token), documents.to_number<std::uint64_t>());
    cursor.statistics = std::move(read);
  }
  return cursor;
}

}  // namespace eventsvc::host
