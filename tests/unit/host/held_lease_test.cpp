#include "limits/held_lease.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace eventsvc::host {
namespace {

// Records what it was handed back.
class RecordingLimits final : public sdk::Limits {
 public:
  sdk::RateDecision charge(std::string_view, int) override { return {}; }
  std::optional<sdk::Lease> acquire(std::string_view key, int) override {
    return sdk::Lease{std::string(key), "token" + std::to_string(++granted), 1};
  }
  void release(const sdk::Lease& lease) noexcept override { released.push_back(lease.token); }

  int granted = 0;
  std::vector<std::string> released;
};

TEST(HeldLease, ReleasesOnceWhenDestroyed) {
  RecordingLimits limits;
  {
    const HeldLease held(limits, *limits.acquire("t", 1));
    EXPECT_TRUE(held);
    EXPECT_EQ(held.active(), 1);
    EXPECT_TRUE(limits.released.empty());
  }
  EXPECT_EQ(limits.released, std::vector<std::string>{"token1"});
}

TEST(HeldLease, MovedLeaseReleasesOnceAndReassignmentReleasesTheOldOne) {
  RecordingLimits limits;
  std::optional<HeldLease> first;
  first.emplace(limits, *limits.acquire("t", 1));
  HeldLease moved = std::move(*first);
  first.reset();
  EXPECT_TRUE(limits.released.empty());
  moved = HeldLease(limits, *limits.acquire("t", 1));
  EXPECT_EQ(limits.released, std::vector<std::string>{"token1"});
  moved.reset();
  moved.reset();
  EXPECT_EQ(limits.released, (std::vector<std::string>{"token1", "token2"}));
}

}  // namespace
}  // namespace eventsvc::host
