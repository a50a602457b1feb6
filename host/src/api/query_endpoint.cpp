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
  paging.continue_read(query);

  json::array results;
  std::optional<sdk::ReadPosition> last;
  bool more = false;
  const sdk::ScanStats stats = storage_.call([&](sdk::Storage& storage) {
    return storage.scan(request.principal.tenant, query, [&](const sdk::Record& record, double) {
      if (results.size() == limit) {
        more = true;
        return false;
      }
      last = sdk::ReadPosition{0, record.timestamp, record.id};
      results.emplace_back(record_answer(record, fields));
      return true;
    });
  });
  json::object answer;
  answer["count"] = results.size();
  answer["results"] = std::move(results);
  answer["source"] = sdk::source_name(query.source);
  answer["complete"] = stats.complete;
  answer["scanned"] = stats.scanned;
  ApiResponse response;
  paging.end_page(answer, response.headers, last, more, stats.complete, nullptr);
  answer["elapsed_ms"] = elapsed_ms_since(started);
  response.body = sdk::to_json(answer);
  return response;
}

}  // namespace eventsvc::host
