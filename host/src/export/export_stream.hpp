// The body of an export (POST /v1/exports): every record a query matches, in its order, read from
// storage a page at a time after the last record written, as NDJSON — one line per record,
// {"cursor": "...", "record": {...}} — or as CSV with the fields as columns after a `cursor`
// column. Each line's cursor resumes the export right after that line. Optionally gzip.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "api/page_cursor.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "export/gzip_encoder.hpp"
#include "modules/module.hpp"
#include "server/http_message.hpp"

namespace eventsvc::host {

struct ExportFormat {
  bool csv = false;   // else NDJSON
  bool gzip = false;  // Content-Encoding: gzip
};

class ExportStream final : public BodyStream {
 public:
  // `query`: the export's read, its `after` set when it resumes; `cursor`: every line's cursor
  // but its position.
  ExportStream(const Module<sdk::Storage>& storage, sdk::Tenant tenant, sdk::RecordQuery query,
               std::vector<sdk::FieldPath> fields, const CursorSeal& seal, const PageCursor& cursor,
               ExportFormat format);

  // Makes the export one of a span of the change feed, after `after` up to and including `until`
  // (what a live tail that fell behind missed), in feed order; each line's cursor is then the
  // position of its record. Before start().
  void read_feed_span(std::string after, std::string until);
  // Reads the first page now, so that a read that fails is the request's error status rather
  // than a body cut short.
  void start();
  // A page's lines; while no page read ahead is ready (pages are read on a thread of their own
  // while the connection writes), nothing, and waiting() says to wait for the wake-up.
  std::string next() override;
  std::optional<std::chrono::milliseconds> waiting() override;
  void on_more(std::function<void()> wake) override;
  void count_work_in(std::atomic<int>& running) override;
  void written(std::string&& chunk) override;

 private:
  // Starts reading pages on a thread of its own, until kPagesAhead wait or every match is read.
  // Under ahead_mutex_.
  void read_ahead();
  void read_pages_ahead(const std::stop_token& stop, std::atomic<int>* counted);
  // The next page's lines (empty once every match is written).
  std::string read_page();
  std::string read_feed_page();
  void write_line(const sdk::Record& record, const sdk::ReadPosition& position, std::string& out);
  void write_ndjson_line(const sdk::ReadPosition& position, std::string_view record,
                         std::string& out);

  const Module<sdk::Storage>& storage_;
  sdk::Tenant tenant_;
  sdk::RecordQuery query_;
  std::optional<sdk::ChangeQuery> feed_span_;
  std::vector<sdk::FieldPath> fields_;
  PositionSealer sealer_;
  ExportFormat format_;
  std::optional<GzipEncoder> gzip_;
  std::string pending_;         // read by start(), not yet sent
  std::size_t page_bytes_ = 0;  // the last page's size: the next one's first guess
  // The reading thread's while it runs; read by next() under the lock once it has stopped.
  bool read_all_ = false;
  bool ended_ = false;

  std::atomic<int>* running_ = nullptr;  // counts the reading thread while it reads
  std::mutex ahead_mutex_;
  std::function<void()> wake_;  // the connection's, under the lock
  std::condition_variable ahead_ready_;
  // Under the lock: the reading thread runs (it stops when kPagesAhead pages wait, so that a slow
  // client holds memory for a few pages and no thread), the pages it read and nobody has taken,
  // and why it stopped short.
  bool reader_running_ = false;
  std::deque<std::string> ahead_;
  std::exception_ptr ahead_failure_;
  std::string spare_;    // a chunk written, whose memory the next page is read into
  std::jthread reader_;  // last: stopped and joined before anything it uses goes
};

}  // namespace eventsvc::host
