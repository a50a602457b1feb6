#include "metrics/metric_families.hpp"

#include <gtest/gtest.h>

#include "metrics/host_metrics.hpp"

namespace eventsvc::host {
namespace {

TEST(MetricFamilies, GroupsSeriesByNameWithPrefixAndCommonLabels) {
  MetricFamilies page;
  {
    const auto plugin = page.sink("eventsvc_", {{"plugin", "rocksdb"}});
    plugin->counter("writes_total", "Writes", 3, {{"state", "ok"}});
    plugin->gauge("backlog", "Backlog", 2);
    plugin->counter("writes_total", "Writes", 1, {{"state", "failed"}});
  }
  EXPECT_EQ(page.text(),
            "# HELP eventsvc_writes_total Writes\n"
            "# TYPE eventsvc_writes_total counter\n"
            "eventsvc_writes_total{plugin=\"rocksdb\",state=\"ok\"} 3\n"
            "eventsvc_writes_total{plugin=\"rocksdb\",state=\"failed\"} 1\n"
            "# HELP eventsvc_backlog Backlog\n"
            "# TYPE eventsvc_backlog gauge\n"
            "eventsvc_backlog{plugin=\"rocksdb\"} 2\n");
  EXPECT_EQ(page.rejected(), 0U);
}

TEST(MetricFamilies, WritesHistogramsWithTheirInfiniteBucket) {
  MetricFamilies page;
  sdk::Histogram histogram({0.5, 1});
  histogram.observe(0.25);
  histogram.observe(2);
  page.sink("")->histogram("lag_seconds", "Lag", histogram.snapshot());
  EXPECT_EQ(page.text(),
            "# HELP lag_seconds Lag\n"
            "# TYPE lag_seconds histogram\n"
            "lag_seconds_count 2\n"
            "lag_seconds_sum 2.25\n"
            "lag_seconds_bucket{le=\"0.5\"} 1\n"
            "lag_seconds_bucket{le=\"1\"} 1\n"
            "lag_seconds_bucket{le=\"+Inf\"} 2\n");
}

TEST(MetricFamilies, LeavesOutSeriesReportedWrongly) {
  MetricFamilies page;
  const auto sink = page.sink("eventsvc_");
  sink->gauge("fine", "Fine", 1);
  sink->gauge("has space", "Bad name", 1);
  sink->gauge("bad_label", "Bad label", 1, {{"1st", "x"}});
  sink->gauge("bucketed", "Reserved label", 1, {{"le", "1"}});
  sink->counter("fine", "Fine", 1);      // another kind
  sink->gauge("fine", "Other help", 1);  // another help text
  EXPECT_EQ(page.rejected(), 5U);
  EXPECT_EQ(page.rejections().front(), "eventsvc_has space: not a metric name");
  EXPECT_EQ(page.rejections()[1], "eventsvc_bad_label: label '1st' is not a label name");
  EXPECT_EQ(page.rejections()[3], "eventsvc_fine: already reported with another kind or help text");
  EXPECT_EQ(page.text(),
            "# HELP eventsvc_fine Fine\n# TYPE eventsvc_fine gauge\neventsvc_fine 1\n");
}

TEST(HostMetrics, CountsRequestsByOperationAndStatus) {
  HostMetrics metrics;
  metrics.request(Operation::query, 200, 0.002);
  metrics.request(Operation::query, 200, 0.3);
  metrics.request(std::nullopt, 404, std::nullopt);
  metrics.request(Operation::ingest, 99, std::nullopt);  // no such status: not counted
  metrics.refused(Refusal::concurrency);
  metrics.ingested(3, 1);
  MetricFamilies page;
  metrics.report(*page.sink("eventsvc_"));
  const std::string text = page.text();
  EXPECT_NE(text.find("eventsvc_http_requests_total{operation=\"query\",status=\"200\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("eventsvc_http_requests_total{operation=\"none\",status=\"404\"} 1\n"),
            std::string::npos);
  EXPECT_EQ(text.find("status=\"99\""), std::string::npos);
  EXPECT_NE(text.find("eventsvc_http_request_duration_seconds_count{operation=\"query\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("eventsvc_http_request_duration_seconds_bucket{operation=\"query\","
                      "le=\"0.0025\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("eventsvc_http_refusals_total{reason=\"concurrency\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("eventsvc_ingest_events_total 3\n"), std::string::npos);
  EXPECT_NE(text.find("eventsvc_ingest_duplicate_events_total 1\n"), std::string::npos);
}

}  // namespace
}  // namespace eventsvc::host
