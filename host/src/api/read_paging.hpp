// The paging of one search, query or analyze request: the page it continues (`?cursor=`, the only
// URL parameter these endpoints take) and, when more matches follow the page, the cursor of the
// next one: `next_cursor` in the answer and a `Link: <…>; rel="next"` header.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/page_cursor.hpp"
#include "server/endpoint.hpp"

namespace eventsvc::host {

class ReadPaging {
 public:
  // Opens the request's cursor, if it has one (CursorSeal::open's 400 and 410); any other URL
  // parameter is a 400.
  ReadPaging(const CursorSeal& seal, sdk::Millis lifetime, std::string_view read,
             const ApiRequest& request, const sdk::json::value& body);

  // The instant the request is evaluated at: the first page's, so that time expressions and the
  // retention horizon mean on every page what they meant on the first.
  sdk::Millis now() const { return cursor_ ? cursor_->now : request_.now; }
  const std::optional<PageCursor>& cursor() const { return cursor_; }

  // Makes `query` read the matches after the previous page, ranked as the first page ranked them.
  void continue_read(sdk::RecordQuery& query) const;

  // After a page whose last record is `last` and that more matches follow: the answer's
  // next_cursor and the Link header. Ranked reads pass the statistics they scored with.
  void link_next(sdk::json::object& answer, HeaderList& headers, const sdk::ReadPosition& last,
                 std::shared_ptr<const sdk::RankStatistics> statistics) const;
  // After a page read with one match more than it shows (`more`: that one came) whose last shown
  // record is `last` (nullopt: it showed none): links the next page when more matches follow, or
  // when a read its scan limit cut short (`complete` false) showed some.
  void end_page(sdk::json::object& answer, HeaderList& headers,
                const std::optional<sdk::ReadPosition>& last, bool more, bool complete,
                std::shared_ptr<const sdk::RankStatistics> statistics) const;

  // The cursor of any later position of this request (its `after` left to fill in), and the seal
  // to seal it with: for answers that give a cursor per record.
  PageCursor cursor_template() const;
  const CursorSeal& seal() const { return seal_; }

 private:
  const CursorSeal& seal_;
  sdk::Millis lifetime_;
  std::string read_;
  const ApiRequest& request_;
  std::string tenant_;
  std::string request_digest_;
  std::optional<PageCursor> cursor_;
};

}  // namespace eventsvc::host
