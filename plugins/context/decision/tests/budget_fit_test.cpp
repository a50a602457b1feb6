#include "budget_fit.hpp"

#include <gtest/gtest.h>

#include <random>

namespace eventsvc::plugins::context {
namespace {

// A packet of `sizes` items over a fixed base.
struct SyntheticPacket {
  std::size_t base = 140;
  std::vector<std::size_t> sizes;

  std::size_t measure(const std::vector<bool>& dropped) const {
    std::size_t tokens = base;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (!dropped[i]) tokens += sizes[i];
    }
    return tokens;
  }
};

TEST(BudgetFit, EverythingThatFitsIsKeptAndALargerBudgetIsOnlyACeiling) {
  const SyntheticPacket packet{140, {10, 20, 30}};
  const auto measure = [&](const std::vector<bool>& d) { return packet.measure(d); };
  for (const std::size_t budget : {200U, 201U, 1000U, 100000U}) {
    const auto choice = fit_to_budget(3, budget, 0, measure);
    EXPECT_EQ(choice.dropped_count(), 0U);
    EXPECT_EQ(choice.tokens, 200U) << budget;
  }
  // Dropping the first two brings it within 180; the first (10) then fits again.
  const auto choice = fit_to_budget(3, 180, 0, measure);
  EXPECT_EQ(choice.dropped, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(choice.tokens, 180U);
}

TEST(BudgetFit, AtTheFixedPointNothingDroppedWouldFitAndTheBudgetHolds) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 500; ++trial) {
    SyntheticPacket packet;
    const std::size_t items = 1 + random() % 40;
    for (std::size_t i = 0; i < items; ++i) {
      packet.sizes.push_back(5 + random() % 300);
    }
    const std::size_t budget = 256 + random() % 6000;
    const std::size_t put_back_from = random() % 3 == 0 ? random() % items : 0;
    const auto measure = [&](const std::vector<bool>& d) { return packet.measure(d); };
    const auto choice = fit_to_budget(items, budget, put_back_from, measure);
    ASSERT_EQ(choice.tokens, measure(choice.dropped));
    EXPECT_LE(choice.tokens, budget) << trial;
    for (std::size_t i = put_back_from; i < items; ++i) {
      if (!choice.dropped[i]) continue;
      auto with = choice.dropped;
      with[i] = false;
      EXPECT_GT(measure(with), budget)
          << "trial " << trial << ": item " << i << " was dropped but fits";
    }
  }
}

TEST(BudgetFit, ItemsKeptNeverDecreaseAsTheBudgetGrows) {
  std::mt19937 random(11);
  for (int trial = 0; trial < 100; ++trial) {
    SyntheticPacket packet;
    for (std::size_t i = 0; i < 30; ++i) {
      packet.sizes.push_back(5 + random() % 300);
    }
    const auto measure = [&](const std::vector<bool>& d) { return packet.measure(d); };
    // The most important candidate (the last) is kept from the first budget it fits.
    bool kept_before = false;
    for (std::size_t budget = 256; budget <= 12000; budget += 97) {
      const auto choice = fit_to_budget(30, budget, 0, measure);
      const bool kept = !choice.dropped.back();
      EXPECT_TRUE(kept || !kept_before) << trial << " at " << budget;
      kept_before = kept;
    }
  }
}

}  // namespace
}  // namespace eventsvc::plugins::context
