// The reads whose filter is a URL: a live tail (GET /v1/tail?where=…&stream=…&fields=…&since=…)
// with its Last-Event-ID header, and the fields list (GET /v1/fields?source=…&from=…&sample=…):
// %-decoding, the parameter rules, the where object as JSON in a URL, field lists, event ids and
// time expressions. Whatever the input, the answer is a tail's stream whose first events can be
// made, a fields list, or a 4xx. The input's first byte picks what its rest is: the tail's URL
// query, its Last-Event-ID header (the query then empty), or the fields list's URL query.
#include "api/fields_endpoint.hpp"
#include "api/tail_endpoint.hpp"
#include "fuzz_input.hpp"
#include "read_caller.hpp"

using namespace eventsvc;

namespace {

struct Tailing {
  fuzz::ReadCaller caller{"GET"};
  host::TailEndpoint tail{caller.config, caller.storage_module, caller.seal};
  host::FieldsEndpoint fields{caller.config, caller.storage_module};
};

void list_fields(Tailing& reading, const std::string& query) {
  reading.caller.head.target = "/v1/fields?" + query;
  const host::ApiRequest request{
      reading.caller.principal, reading.caller.plan, reading.caller.head, {}, {}, fuzz::kNow};
  try {
    const host::ApiResponse response = reading.fields.handle(request);
    if (response.status != 200 || !sdk::parse_json(response.body).is_object())
      fuzz::defect("a fields list that is not a JSON object", response.body);
  } catch (const sdk::Error& error) {
    fuzz::require_client_error(error);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Tailing tailing;
  if (size == 0) return 0;
  const std::string rest(fuzz::as_text(data + 1, size - 1));
  tailing.caller.head.headers.clear();
  if (data[0] % 3 == 2) {
    list_fields(tailing, rest);
    return 0;
  }
  if (data[0] % 3 == 0) {
    tailing.caller.head.target = "/v1/tail?" + rest;
  } else {
    tailing.caller.head.target = "/v1/tail";
    tailing.caller.head.headers.emplace_back("Last-Event-ID", rest);
  }
  const host::ApiRequest request{
      tailing.caller.principal, tailing.caller.plan, tailing.caller.head, {}, {}, fuzz::kNow};
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
