#include "api/export_endpoint.hpp"

#include "api/query_request.hpp"
#include "api/validation.hpp"
#include "export/export_stream.hpp"
#include "tail/tail_request.hpp"

namespace eventsvc::host {

namespace {

ExportFormat format_of(const RequestHead& head, const QueryRequest& parsed) {
  ExportFormat format;
  format.csv = header_names(head.header("Accept"), "text/csv");
  format.gzip = header_names(head.header("Accept-Encoding"), "gzip");
  if (format.csv && parsed.fields.empty()) {
    throw sdk::Error::bad_request(
        "CSV has one column per field: name them in fields, or accept application/x-ndjson",
        {{"errors", json::array{json::object{{"path", "/fields"},
                                             {"message", "is required for text/csv"}}}}});
  }
  return format;
}

}  // namespace

ApiResponse ExportEndpoint::handle(const ApiRequest& request) {
  const json::value body = parse_body(request.body);
  const ReadPaging paging = this->paging("exports", request, body);
  QueryRequest parsed = parse_query_request(body, QueryShape::export_, request.plan, paging.now());
  paging.continue_read(parsed.read);
  const ExportFormat format = format_of(request.http, parsed);

  PageCursor lines = paging.cursor_template();
  std::optional<std::pair<std::string, std::string>> span;
  if (paging.cursor() && !paging.cursor()->feed_until.empty()) {
    // A live tail's missed span (tail/tail_stream.hpp): the cursor is sealed, so these parse.
    auto after = tail_position(paging.cursor()->after.id);
    auto until = tail_position(paging.cursor()->feed_until);
    if (!after || !until) throw sdk::Error::internal("a sealed feed span does not parse");
    span.emplace(std::move(*after), std::move(*until));
    lines.feed_until = paging.cursor()->feed_until;
  }
  auto stream =
      std::make_shared<ExportStream>(storage_, request.principal.tenant, std::move(parsed.read),
                                     std::move(parsed.fields), paging.seal(), lines, format);
  if (span) stream->read_feed_span(std::move(span->first), std::move(span->second));
  stream->start();
  ApiResponse response;
  response.headers.emplace_back("Content-Type",
                                format.csv ? "text/csv; charset=utf-8" : "application/x-ndjson");
  response.headers.emplace_back("Vary", "Accept, Accept-Encoding");
  if (format.gzip) response.headers.emplace_back("Content-Encoding", "gzip");
  response.stream = std::move(stream);
  return response;
}

}  // namespace eventsvc::host
