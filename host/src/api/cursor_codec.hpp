// The bytes inside a paging cursor (api/page_cursor.hpp seals and opens them).
//
// "c2" cursors carry a compact binary payload: numbers as variable-length integers, the tenant and
// request digests (and any other lowercase hex) as the raw bytes they spell: about 125 characters
// against about 265 for the JSON of "c1" cursors, which are still opened so that cursors issued
// before an upgrade keep working until they expire.
//
// "c3" cursors, an export's one per line (their size is paid per record), leave out what the
// request that brings them back supplies anyway: the read is one byte, the tenant and request
// digests only their first three bytes (hints that name which of them differs when a cursor comes
// back with another key or body; the MAC's key is derived from the full digests,
// api/page_cursor.hpp). About 75 characters.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::host {

struct PageCursor;

// URL-safe base64 without padding (RFC 4648 section 5): cursors go on URLs as they are.
void append_base64url(std::string_view bytes, std::string& out);
std::optional<std::string> from_base64url(std::string_view text);

// The c2 payload of everything before the position: read, digests, instants, feed span.
std::string encode_cursor_head(const PageCursor& cursor);
// The rest: the position and, for ranked reads, the first page's statistics.
void append_cursor_position(const sdk::ReadPosition& after, const sdk::RankStatistics* statistics,
                            std::string& out);
// Both; throws std::runtime_error when `payload` is not what the two made.
PageCursor decode_cursor(std::string_view payload);

// The c3 payload before the position: read, digest hints, instants, feed span. Throws
// std::logic_error for a read without a code or digests that are not hex.
std::string encode_line_head(const PageCursor& cursor);
// That head and the position; the cursor's `tenant` and `request` hold the hints (hex). Throws
// std::runtime_error when `payload` is not what encode_line_head and append_cursor_position made.
PageCursor decode_line_cursor(std::string_view payload);

// The payload of a c1 cursor (JSON); throws on anything else.
PageCursor decode_json_cursor(std::string_view payload);

}  // namespace eventsvc::host
