// The body of a live tail (GET /v1/tail): Server-Sent Events read from the storage's change feed
// after the tail's position, as the client takes them, so a slow client holds its socket, not
// memory or a thread (docs/api.md#tail).
//
//   event: open     first: the position the tail starts after (its id), so a client cut off
//                   before any event still resumes without a gap
//   (message)       one per matching event: `id:` its feed position, `data:` the record as query
//                   answers it (trimmed to `fields`)
//   event: lagged   the tail trailed the newest event by more than `tail.max_lag`: it skips to
//                   the newest; `data` says how many matching events it skipped and gives the
//                   export body and cursor that fetch exactly those
//   event: end      the server is stopping: reconnect with Last-Event-ID to go on
//   ": heartbeat"   a comment when nothing was sent for `tail.heartbeat`
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "api/page_cursor.hpp"
#include "config/host_config.hpp"
#include "modules/module.hpp"
#include "server/http_message.hpp"
#include "tail/tail_hub.hpp"
#include "tail/tail_request.hpp"

namespace eventsvc::host {

class TailStream final : public BodyStream {
 public:
  // Reads where the tail starts now, so that a storage failure is the request's error status.
  TailStream(const Module<sdk::Storage>& storage, TailHub& hub, sdk::Tenant tenant,
             TailRequest request, const TailConfig& config, PageCursor export_cursor,
             const CursorSeal& seal);
  ~TailStream() override;

  std::string next() override;
  std::optional<std::chrono::milliseconds> waiting() override;
  void on_more(std::function<void()> wake) override;
  std::optional<std::string> closing() override;

 private:
  using Clock = std::chrono::steady_clock;
  // The events after the position, as many as one read takes.
  std::string read_events();
  // Counts the missed events of a lag a part at a time; the lagged event once counted.
  std::string count_missed();
  std::string lagged_event() const;

  const Module<sdk::Storage>& storage_;
  TailHub& hub_;
  sdk::Tenant tenant_;
  TailRequest request_;
  TailConfig config_;
  PageCursor export_cursor_;  // the lagged event's, its span filled in
  const CursorSeal& seal_;
  std::shared_ptr<void> subscription_;

  std::string position_;                  // the last feed position read (sent or not matching)
  std::optional<std::uint64_t> ordinal_;  // its ordinal, once known
  std::optional<sdk::Millis> since_;      // until the first read from an instant
  bool opened_ = false;
  bool at_end_ = false;                // the last read reached the end of the feed
  std::uint64_t seen_generation_ = 0;  // the hub's generation before that read
  Clock::time_point last_sent_ = Clock::now();
  Clock::time_point last_read_ = Clock::now();

  // A lag being counted: the span (position_, lag_to_] skipped.
  struct Lag {
    std::string from;  // position_ when the lag was seen
    std::string to;
    std::uint64_t to_ordinal = 0;
    std::string counted_to;  // counted up to here
    std::uint64_t missed = 0;
  };
  std::optional<Lag> lag_;
};

}  // namespace eventsvc::host
