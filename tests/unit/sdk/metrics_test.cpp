#include "eventsvc/sdk/metrics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace eventsvc::sdk {
namespace {

TEST(Histogram, CountsEachObservationInTheFirstBucketItFitsCumulatively) {
  Histogram histogram({0.1, 1, 10});
  for (const double value : {0.05, 0.1, 0.5, 1.0, 7.0, 11.0, 100.0})
    histogram.observe(value);
  const HistogramSnapshot snapshot = histogram.snapshot();
  EXPECT_EQ(snapshot.upper_bounds, (std::vector<double>{0.1, 1, 10}));
  // <= 0.1: 0.05, 0.1; <= 1: + 0.5, 1.0; <= 10: + 7; +Inf: + 11, 100.
  EXPECT_EQ(snapshot.cumulative_counts, (std::vector<std::uint64_t>{2, 4, 5, 7}));
  EXPECT_DOUBLE_EQ(snapshot.sum, 0.05 + 0.1 + 0.5 + 1.0 + 7.0 + 11.0 + 100.0);
}

TEST(Histogram, LosesNoObservationFromManyThreads) {
  Histogram histogram(Histogram::latency_bounds());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&histogram, t] {
      for (int i = 0; i < 10000; ++i)
        histogram.observe(t == 0 ? 0.0005 : 3.0);
    });
  }
  for (auto& thread : threads)
    thread.join();
  const auto snapshot = histogram.snapshot();
  EXPECT_EQ(snapshot.cumulative_counts.front(), 10000U);
  EXPECT_EQ(snapshot.cumulative_counts.back(), 40000U);
  EXPECT_NEAR(snapshot.sum, 10000 * 0.0005 + 30000 * 3.0, 1e-6);
}

TEST(Histogram, LatencyBoundsAscendFromAMillisecondToAMinute) {
  const auto bounds = Histogram::latency_bounds();
  EXPECT_EQ(bounds.front(), 0.001);
  EXPECT_EQ(bounds.back(), 60);
  EXPECT_TRUE(std::is_sorted(bounds.begin(), bounds.end()));
}

}  // namespace
}  // namespace eventsvc::sdk
