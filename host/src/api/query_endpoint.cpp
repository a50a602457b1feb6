#include "api/query_endpoint.hpp"

#include <chrono>
#include <cmath>

#include "api/field_projection.hpp"
#include "api/query_request.hpp"
#include "api/validation.hpp"

namespace eventsvc::host {

ApiResponse QueryEndpoint::handle(const ApiRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  const json::value body = parse_body(request.body);
  const ReadPaging paging = this->paging("query", request, body);
  QueryRequest parsed = parse_query_request(body, QueryShape::query, request.plan, paging.now());
  sdk::RecordQuery& query = parsed.read;
  const std::vector<sdk::FieldPath>& fields = parsed.fields;
  const std::size_t limit = query.limit;
  query.limit = limit + 1;  // one more tells whether a next page exists
  query.scan_limit = kQueryScanLimit;
  query.fields = fields;  // the engine may leave out of each record what the answer does not show
  paging.continue_read(query);

  // The records' answer JSON, comma-separated: spliced by the engine when it can
  // (Storage::scan_json), else written from the decoded records.
  std::string results;
  std::size_t count = 0;
  std::optional<sdk::ReadPosition> last;
  bool more = false;
  auto take = [&](sdk::Millis timestamp, std::string_view id) {
    if (count == limit) {
      more = true;
      return false;
    }
    last = sdk::ReadPosition{0, timestamp, std::string(id)};
    if (count++ > 0) results.push_back(',');
    return true;
  };
  const sdk::ScanStats stats = storage_.call([&](sdk::Storage& storage) {
    if (fields.empty()) {
      auto spliced =
          storage.scan_json(request.principal.tenant, query, [&](const sdk::RecordJson& record) {
            if (!take(record.timestamp, record.id)) return false;
            results += record.json;
            return true;
          });
      if (spliced) return *spliced;
    }
    return storage.scan(request.principal.tenant, query, [&](const sdk::Record& record, double) {
      if (!take(record.timestamp, record.id)) return false;
      append_record_answer(results, record, fields);
      return true;
    });
  });
  json::object rest;
  rest["source"] = sdk::source_name(query.source);
  rest["complete"] = stats.complete;
  rest["scanned"] = stats.scanned;
  ApiResponse response;
  paging.end_page(rest, response.headers, last, more, stats.complete, nullptr);
  rest["elapsed_ms"] = elapsed_ms_since(started);
  // {"count":…,"results":[…], then the other members.
  response.body = R"({"count":)" + std::to_string(count) + R"(,"results":[)";
  response.body += results;
  response.body += "],";
  const std::string others = sdk::to_json(rest);
  response.body.append(others, 1);
  return response;
}

}  // namespace eventsvc::host
