#include "budget_fit.hpp"

#include <gtest/gtest.h>

#include <random>

namespace eventsvc::plugins::context {
namespace {

// A packet of `sizes` items over a fixed base, where each item also costs `proof` extra at
// detail 0 and half that at detail 1 (its ids in the proof), nothing at detail 2.
struct SyntheticPacket {
  std::size_t base = 140;
  std::vector<std::size_t> sizes;
  std::vector<std::size_t> proof;

  std::size_t measure(const std::vector<bool>& dropped, int level) const {
    std::size_t tokens = base;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (dropped[i]) continue;
      tokens += sizes[i] + (level == 0 ? proof[i] : level == 1 ? proof[i] / 2 : 0);
    }
    return tokens;
  }
};

TEST(BudgetFit, EverythingThatFitsAtTheLeastShrinkingLevelIsKept) {
  const SyntheticPacket packet{140, {10, 20, 30}, {100, 100, 100}};
  const auto measure = [&](const std::vector<bool>& d, int l) { return packet.measure(d, l); };
  auto choice = fit_to_budget(3, 1000, 0, measure);
  EXPECT_EQ(choice.level, 0);
  EXPECT_EQ(choice.dropped_count(), 0U);
  choice = fit_to_budget(3, 400, 0, measure);  // 200 + 150 at level 1
  EXPECT_EQ(choice.level, 1);
  EXPECT_EQ(choice.dropped_count(), 0U);
  choice = fit_to_budget(3, 250, 0, measure);  // 200 at level 2
  EXPECT_EQ(choice.level, 2);
  EXPECT_EQ(choice.tokens, 200U);
}

TEST(BudgetFit, AtTheFixedPointNothingDroppedWouldFitAndTheBudgetHolds) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 500; ++trial) {
    SyntheticPacket packet;
    const std::size_t items = 1 + random() % 40;
    for (std::size_t i = 0; i < items; ++i) {
      packet.sizes.push_back(5 + random() % 300);
      packet.proof.push_back(random() % 200);
    }
    const std::size_t budget = 256 + random() % 6000;
    const std::size_t put_back_from = random() % 3 == 0 ? random() % items : 0;
    const auto measure = [&](const std::vector<bool>& d, int l) { return packet.measure(d, l); };
    const auto choice = fit_to_budget(items, budget, put_back_from, measure);
    ASSERT_EQ(choice.tokens, measure(choice.dropped, choice.level));
    EXPECT_LE(choice.tokens, budget) << trial;
    for (std::size_t i = put_back_from; i < items; ++i) {
      if (!choice.dropped[i]) continue;
      auto with = choice.dropped;
      with[i] = false;
      EXPECT_GT(measure(with, kMostShrunk), budget)
          << "trial " << trial << ": item " << i << " was dropped but fits";
    }
    // No less shrinking level would have held what was kept.
    for (int level = 0; level < choice.level; ++level)
      EXPECT_GT(measure(choice.dropped, level), budget) << trial;
  }
}

TEST(BudgetFit, ItemsKeptNeverDecreaseAsTheBudgetGrows) {
  std::mt19937 random(11);
  for (int trial = 0; trial < 100; ++trial) {
    SyntheticPacket packet;
    for (std::size_t i = 0; i < 30; ++i) {
      packet.sizes.push_back(5 + random() % 300);
      packet.proof.push_back(random() % 200);
    }
    const auto measure = [&](const std::vector<bool>& d, int l) { return packet.measure(d, l); };
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
