// The URL query of a paged read (`?cursor=` and whatever else a client sends), through the query
// endpoint's paging: %-decoding, the parameter rules, and opening a cursor — forged, edited,
// truncated or well-formed but foreign. Whatever the URL, the answer is a success or a 4xx. The
// input's first byte picks whether its rest is the URL query as sent, or a cursor this service
// sealed (a page's c2 or an export line's c3 form) with one byte of it changed.
#include <optional>

#include "api/query_endpoint.hpp"
#include "fuzz_input.hpp"
#include "read_caller.hpp"

using namespace eventsvc;

namespace {

struct Paging {
  Paging() {
    host::PageCursor cursor;
    cursor.read = "query";
    cursor.tenant = host::tenant_digest(caller.principal.tenant);
    cursor.request = host::request_digest(sdk::parse_json(kBody));
    cursor.now = fuzz::kNow;
    cursor.expires_at = fuzz::kNow + 1000;
    cursor.after = {0, fuzz::kNow - 5, "evt-1"};
    sealed = caller.seal.seal(cursor);
    line_sealed = host::PositionSealer(caller.seal, cursor).seal(cursor.after);
  }

  static constexpr std::string_view kBody = R"({"limit": 5})";
  fuzz::ReadCaller caller{"POST"};
  host::QueryEndpoint query{caller.config, caller.storage_module, caller.seal};
  std::string sealed;
  std::string line_sealed;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Paging paging;
  if (size == 0) return 0;
  const std::string_view rest = fuzz::as_text(data + 1, size - 1);
  if (data[0] % 3 == 0) {
    paging.caller.head.target = "/v1/query?" + std::string(rest);
  } else {
    std::string edited = data[0] % 3 == 1 ? paging.sealed : paging.line_sealed;
    if (!rest.empty()) edited[static_cast<unsigned char>(rest[0]) % edited.size()] = rest.back();
    paging.caller.head.target = "/v1/query?cursor=" + edited;
  }
  const host::ApiRequest request{paging.caller.principal,
                                 paging.caller.plan,
                                 paging.caller.head,
                                 Paging::kBody,
                                 {},
                                 fuzz::kNow};
  try {
    const host::ApiResponse response = paging.query.handle(request);
    if (response.status >= 300) fuzz::defect("an answer that is not a success", response.body);
  } catch (const sdk::Error& error) {
    fuzz::require_client_error(error);
  }
  return 0;
}
