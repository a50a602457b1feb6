// What a plugin shows on the operator's /metrics page (Prometheus text format). The host asks each
// plugin for its figures at every scrape, through Plugin::report_metrics(); a plugin keeps them in
// atomics or reads them from its engine then, and never formats text itself.
//
// Names: lower case letters, digits and underscores, without the `eventsvc_` prefix the host adds;
// a counter's name ends in `_total`, a measurement's in its base unit (`_seconds`, `_bytes`).
// Label values must come from a small fixed set (never a tenant, key or event value): each
// distinct set of labels is a series the monitoring system keeps forever.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace eventsvc::sdk {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// A histogram as a scrape reports it: for each upper bound, how many observations were at most
// that (cumulative); the last count is every observation (+Inf).
struct HistogramSnapshot {
  std::vector<double> upper_bounds;              // ascending
  std::vector<std::uint64_t> cumulative_counts;  // upper_bounds.size() + 1 entries
  double sum = 0;
};

// Observations into fixed buckets, safe and cheap from any number of threads (no lock): fit for
// once per request.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  void observe(double value);
  HistogramSnapshot snapshot() const;

  // 1 ms to 60 s in steps of about 2.5×: request durations and lags.
  static std::vector<double> latency_bounds();

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // per bucket, not cumulative; +Inf last
  std::atomic<double> sum_{0};
};

// Receives a plugin's figures during a scrape. Series of one name must all be of one kind and
// carry the same help text.
class MetricsSink {
 public:
  virtual ~MetricsSink();
  // A count that only grows while the process lives (events written, errors met).
  virtual void counter(std::string_view name, std::string_view help, double value,
                       const MetricLabels& labels = {}) = 0;
  // A value that goes up and down (a queue's length, bytes in use).
  virtual void gauge(std::string_view name, std::string_view help, double value,
                     const MetricLabels& labels = {}) = 0;
  virtual void histogram(std::string_view name, std::string_view help,
                         const HistogramSnapshot& value, const MetricLabels& labels = {}) = 0;
};

}  // namespace eventsvc::sdk
