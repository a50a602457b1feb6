// The URL of a live tail (GET /v1/tail?where=…&stream=…&fields=…&since=…) and its Last-Event-ID
// header, through the tail endpoint: %-decoding, the parameter rules, the where object as JSON in
// a URL, field lists, event ids and time expressions. Whatever the input, the answer is a stream
// whose first events can be made, or a 4xx. The input's first byte picks whether its rest is the
// URL query or the Last-Event-ID header (the query then empty).
#include "api/tail_endpoint.hpp"
#include "empty_storage.hpp"
#include "fuzz_input.hpp"

using namespace eventsvc;

namespace {

struct Tailing {
  Tailing()
      : storage_module{&storage, "storage plugin 'none'"},
        principal(fuzz::fuzz_principal({std::string(sdk::kScopeRead)})) {
    plan.name = "default";
    head.method = "GET";
  }

  fuzz::EmptyStorage storage;
  host::Module<sdk::Storage> storage_module;
  host::HostConfig config;
  host::Plan plan;
  sdk::Principal principal;
  host::RequestHead head;
  host::CursorSeal seal{std::string(32, 'f')};
  host::TailEndpoint tail{config, storage_module, seal};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Tailing tailing;
  if (size == 0) return 0;
  const std::string rest(fuzz::as_text(data + 1, size - 1));
  tailing.head.headers.clear();
  if (data[0] % 2 == 0) {
    tailing.head.target = "/v1/tail?" + rest;
  } else {
    tailing.head.target = "/v1/tail";
    tailing.head.headers.emplace_back("Last-Event-ID", rest);
  }
  const host::ApiRequest request{tailing.principal, tailing.plan, tailing.head, {}, {}, fuzz::kNow};
  try {
    const host::ApiResponse response = tailing.tail.handle(request);
    if (response.status >= 300 || !response.stream)
      fuzz::defect("an answer that is not a stream", response.body);
    if (response.stream->next().empty()) fuzz::defect("a tail without its open event", rest);
    (void)response.stream->next();
  } catch (const sdk::Error& error) {
    fuzz::require_client_error(error);
  }
  return 0;
}
