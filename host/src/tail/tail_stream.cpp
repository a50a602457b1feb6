#include "tail/tail_stream.hpp"

#include <algorithm>
#include <limits>

#include "api/field_projection.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

// One read: at most this many events sent, and versions looked at.
constexpr std::size_t kReadMatches = 256;
constexpr std::size_t kReadVersions = 4096;
// Versions of a lag counted per step: each step returns to the connection in between.
constexpr std::size_t kCountVersions = 50000;
// Without news from storage, the feed is read again at least this often.
constexpr std::chrono::milliseconds kPollEvery{1000};

void append_event(std::string& out, std::string_view event, std::string_view id,
                  std::string_view data) {
  if (!event.empty()) {
    out += "event: ";
    out += event;
    out += '\n';
  }
  if (!id.empty()) {
    out += "id: ";
    out += id;
    out += '\n';
  }
  out += "data: ";
  out += data;  // JSON on one line: serialized JSON holds no raw line break
  out += "\n\n";
}

}  // namespace

TailStream::TailStream(const Module<sdk::Storage>& storage, TailHub& hub, sdk::Tenant tenant,
                       TailRequest request, const TailConfig& config, PageCursor export_cursor,
                       const CursorSeal& seal)
    : storage_(storage),
      hub_(hub),
      tenant_(std::move(tenant)),
      request_(std::move(request)),
      config_(config),
      export_cursor_(std::move(export_cursor)),
      seal_(seal) {
  seen_generation_ = hub_.generation();
  if (request_.after) {
    position_ = *request_.after;
    // Checked now: an id that is not one of this feed's is the request's 400.
    sdk::ChangeQuery probe;
    probe.after = position_;
    probe.limit = 0;
    probe.scan_limit = 0;
    storage_.call([&](sdk::Storage& s) { return s.changes(tenant_, probe, {}); });
  } else if (request_.since) {
    since_ = request_.since;
  } else {
    const sdk::ChangePosition head =
        storage_.call([&](sdk::Storage& s) { return s.change_head(tenant_); });
    position_ = head.bytes;
    ordinal_ = head.ordinal;
  }
}

TailStream::~TailStream() = default;

void TailStream::on_more(std::function<void()> wake) {
  subscription_ = hub_.subscribe(std::move(wake));
}

std::optional<std::chrono::milliseconds> TailStream::waiting() {
  if (lag_) return std::chrono::milliseconds(0);  // counting: go on at once
  const auto heartbeat_at = last_sent_ + std::chrono::milliseconds(config_.heartbeat);
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(heartbeat_at - Clock::now());
  return std::clamp(left, std::chrono::milliseconds(0), kPollEvery);
}

std::optional<std::string> TailStream::closing() {
  std::string out;
  append_event(out, "end", {},
               sdk::to_json(sdk::json::object{
                   {"reason", "the server is stopping: reconnect with Last-Event-ID to go on"}}));
  return out;
}

std::string TailStream::next() {
  std::string out;
  if (!opened_) {
    opened_ = true;
    out += "retry: 2000\n";
    const std::string id = since_ ? std::string() : tail_event_id(position_);
    sdk::json::object open{{"since", since_ ? sdk::json::value(toolkit::format_rfc3339(*since_))
                                            : sdk::json::value(id)}};
    append_event(out, "open", id, sdk::to_json(open));
    last_sent_ = Clock::now();
    return out;
  }
  if (lag_) return count_missed();
  const bool news = hub_.generation() != seen_generation_;
  if (news || !at_end_ || Clock::now() - last_read_ >= kPollEvery) out = read_events();
  if (lag_ || !out.empty()) {
    if (!out.empty()) last_sent_ = Clock::now();
    return out;
  }
  if (Clock::now() - last_sent_ >= std::chrono::milliseconds(config_.heartbeat)) {
    last_sent_ = Clock::now();
    return ": heartbeat\n\n";
  }
  return out;
}

std::string TailStream::read_events() {
  last_read_ = Clock::now();
  const std::uint64_t generation = hub_.generation();
  sdk::ChangeQuery query;
  query.where = request_.filter.read.where;
  query.limit = kReadMatches;
  query.scan_limit = kReadVersions;
  std::optional<sdk::ChangePosition> head_before;
  if (since_) {
    query.since = since_;
    head_before = storage_.call([&](sdk::Storage& s) { return s.change_head(tenant_); });
  } else {
    query.after = position_;
  }
  std::string out;
  const sdk::ChangeScan scan = storage_.call([&](sdk::Storage& s) {
    return s.changes(tenant_, query,
                     [&](const sdk::ChangePosition& position, const sdk::Record& record) {
                       out += "id: ";
                       out += tail_event_id(position.bytes);
                       out += "\ndata: ";
                       append_record_answer(out, record, request_.filter.fields);
                       out += "\n\n";
                       return true;
                     });
  });
  if (scan.read > 0) {
    position_ = scan.last.bytes;
    ordinal_ = scan.last.ordinal;
    since_.reset();
  } else if (since_) {
    // Nothing made searchable since then: every later version comes after today's newest.
    position_ = head_before->bytes;
    ordinal_ = head_before->ordinal;
    since_.reset();
  }
  at_end_ = scan.at_end;
  if (at_end_) seen_generation_ = generation;

  // Caught up: nothing after the position, so no lag (and no read of the head).
  if (ordinal_ && !at_end_) {
    const sdk::ChangePosition head =
        storage_.call([&](sdk::Storage& s) { return s.change_head(tenant_); });
    if (head.ordinal > *ordinal_ + config_.max_lag) {
      lag_ = Lag{position_, head.bytes, head.ordinal, position_, 0};
    }
  }
  return out;
}

std::string TailStream::count_missed() {
  Lag& lag = *lag_;
  sdk::ChangeQuery query;
  query.where = request_.filter.read.where;
  query.after = lag.counted_to;
  query.until = lag.to;
  query.limit = std::numeric_limits<std::size_t>::max();
  query.scan_limit = kCountVersions;
  const sdk::ChangeScan scan = storage_.call([&](sdk::Storage& s) {
    return s.changes(tenant_, query, [&](const sdk::ChangePosition&, const sdk::Record&) {
      ++lag.missed;
      return true;
    });
  });
  lag.counted_to = scan.last.bytes;
  if (!scan.at_end) return {};
  std::string out = lagged_event();
  position_ = lag.to;
  ordinal_ = lag.to_ordinal;
  at_end_ = false;
  lag_.reset();
  last_sent_ = Clock::now();
  return out;
}

std::string TailStream::lagged_event() const {
  const Lag& lag = *lag_;
  PageCursor cursor = export_cursor_;
  cursor.expires_at = toolkit::now_millis() + (export_cursor_.expires_at - export_cursor_.now);
  cursor.after = {0, 0, tail_event_id(lag.from)};
  cursor.feed_until = tail_event_id(lag.to);
  sdk::json::object data{
      {"missed", lag.missed},
      {"from", tail_event_id(lag.from)},
      {"to", tail_event_id(lag.to)},
      {"export", sdk::json::object{{"body", request_.body}, {"cursor", seal_.seal(cursor)}}}};
  std::string out;
  append_event(out, "lagged", tail_event_id(lag.to), sdk::to_json(data));
  return out;
}

}  // namespace eventsvc::host
