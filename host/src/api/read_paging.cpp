#include "api/read_paging.hpp"

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

ReadPaging::ReadPaging(const CursorSeal& seal, sdk::Millis lifetime, std::string_view read,
                       const ApiRequest& request, const sdk::json::value& body)
    : seal_(seal),
      lifetime_(lifetime),
      read_(read),
      request_(request),
      tenant_(tenant_digest(request.principal.tenant)),
      request_digest_(request_digest(body)) {
  std::optional<std::string> text;
  for (auto& [name, value] : request.http.query_parameters()) {
    if (name != "cursor") {
      throw sdk::Error::bad_request("unknown URL parameter '" + name.substr(0, 64) +
                                    "' (this endpoint takes only cursor)");
    }
    if (text) throw sdk::Error::bad_request("the URL names cursor more than once");
    if (value.empty()) throw sdk::Error::bad_request("cursor is empty");
    text = std::move(value);
  }
  if (text)
    cursor_ = seal_.open(*text, read_, request.principal.tenant, request_digest_, request.now);
}

void ReadPaging::continue_read(sdk::RecordQuery& query) const {
  if (!cursor_) return;
  query.after = cursor_->after;
  if (query.rank_by_text) query.rank_statistics = cursor_->statistics;
}

PageCursor ReadPaging::cursor_template() const {
  PageCursor next;
  next.read = read_;
  next.tenant = tenant_;
  next.request = request_digest_;
  next.now = now();
  next.expires_at = request_.now + lifetime_;
  return next;
}

void ReadPaging::link_next(sdk::json::object& answer, HeaderList& headers,
                           const sdk::ReadPosition& last,
                           std::shared_ptr<const sdk::RankStatistics> statistics) const {
  PageCursor next = cursor_template();
  next.after = last;
  next.statistics = std::move(statistics);
  const std::string sealed = seal_.seal(next);
  answer["next_cursor"] = sealed;
  headers.emplace_back("Link", "</v1/" + read_ + "?cursor=" + sealed + ">; rel=\"next\"");
}

}  // namespace eventsvc::host

namespace eventsvc::host {

void ReadPaging::end_page(sdk::json::object& answer, HeaderList& headers,
                          const std::optional<sdk::ReadPosition>& last, bool more, bool complete,
                          std::shared_ptr<const sdk::RankStatistics> statistics) const {
  if (last && (more || !complete)) link_next(answer, headers, *last, std::move(statistics));
}

}  // namespace eventsvc::host
