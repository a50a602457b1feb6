// Paging cursors: where a page of a search, query or analyze answer ended, handed to the client
// as an opaque string and back on the next request (`?cursor=`). A cursor is sealed with an
// HMAC-SHA256 under the server's cursor key (shared by a cluster's servers), so a client can
// neither forge nor edit one; it names the workspace and environment and the request body it was
// issued for, and the first page's `now`, so every page evaluates the same request at the same
// instant; and it expires (`cursors.lifetime`).
//
// Form: "c2." base64url(payload, then the first 16 bytes of HMAC-SHA256 of "c2." + payload), the
// payload as api/cursor_codec.hpp writes it. An export's lines carry "c3." cursors: base64url(
// payload, then its 128-bit SipHash-2-4 under a key derived for the workspace and request body,
// the first 16 bytes of HMAC-SHA256 of "c3." + tenant digest + "\n" + request digest). SipHash is
// a MAC made for short inputs: a quarter of HMAC's cost per line, and the payload leaves out the
// digests the key already binds. "c1." cursors (a JSON payload, then "." and the full HMAC of the
// text before it) are still opened.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/principal.hpp"
#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::host {

struct PageCursor {
  std::string read;     // "search", "query", "analyze" or "exports"
  std::string tenant;   // digest of the workspace and environment
  std::string request;  // digest of the request body's canonical JSON
  sdk::Millis now = 0;  // the first page's
  sdk::Millis expires_at = 0;
  sdk::ReadPosition after;  // the last record the previous page delivered
  // Set: an export of a span of the change feed (what a live tail that fell behind missed), up to
  // and including this position, in hex; `after.id` is then the feed position (hex) it goes on
  // after.
  std::string feed_until;
  std::shared_ptr<const sdk::RankStatistics> statistics;  // ranked reads: the first page's
};

// The digests a cursor is bound with.
std::string tenant_digest(const sdk::Tenant& tenant);
std::string request_digest(const sdk::json::value& body);

class PositionSealer;
class LineMac;  // the MAC of c3 cursors (page_cursor.cpp)

class CursorSeal {
 public:
  explicit CursorSeal(std::string key) : key_(std::move(key)) {}

  // The key in `path`, created (32 random bytes, hex, mode 0600) when the file does not exist.
  static CursorSeal from_file(const std::filesystem::path& path);

  std::string seal(const PageCursor& cursor) const;
  // The cursor `text` for a `read` of `tenant` with this body at `now`: 400 when it is not one of
  // this server's (malformed, edited, signed with another key), or was issued for another read,
  // workspace and environment, or request body; 410 once expired.
  PageCursor open(std::string_view text, std::string_view read, const sdk::Tenant& tenant,
                  std::string_view request, sdk::Millis now) const;

 private:
  friend class PositionSealer;
  // The c1 or c2 cursor in `text` when this server sealed it; throws (400 or std::exception)
  // otherwise.
  PageCursor unseal(std::string_view text) const;
  // The c3 cursor in `text` when this server sealed it for this read, tenant and request; throws
  // (400 or std::exception) otherwise.
  PageCursor unseal_line(std::string_view text, std::string_view read, std::string_view tenant,
                         std::string_view request) const;
  // The SipHash key of the c3 cursors of a tenant's request.
  std::string line_key(std::string_view tenant, std::string_view request) const;
  // What seals a c2 payload: the first 128 bits of the MAC of "c2." and the payload.
  std::string tag(std::string_view payload) const;
  // The full HMAC-SHA256 of `signed_part`.
  std::string mac(std::string_view signed_part) const;

  std::string key_;
};

// Seals c3 cursors that differ only in their position (an export's, one per line) at a fraction
// of seal()'s cost: the common part of the payload is written once, and the MAC's key is derived
// and set up once. What it seals, CursorSeal::open() opens. One thread at a time.
class PositionSealer {
 public:
  PositionSealer(const CursorSeal& seal, const PageCursor& common);
  ~PositionSealer();
  PositionSealer(const PositionSealer&) = delete;
  PositionSealer& operator=(const PositionSealer&) = delete;

  // Appends the cursor of `after` to `out`.
  void seal(const sdk::ReadPosition& after, std::string& out);
  std::string seal(const sdk::ReadPosition& after);

 private:
  std::string payload_;  // the common part; each seal appends its position and cuts it off
  std::size_t head_size_ = 0;
  std::unique_ptr<LineMac> mac_;  // keyed once
};

}  // namespace eventsvc::host
