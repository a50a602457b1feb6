#include "merge/background_thread.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace rs = eventsvc::plugins::rocksdb_storage;

namespace {

int own_nice() {
  return getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
}

}  // namespace

TEST(BackgroundThread, RunsEachTaskOnItsThreadAndHandsBackTheResult) {
  rs::BackgroundThread background(0);
  const auto caller = std::this_thread::get_id();
  const auto ran_on = background.run([] { return std::this_thread::get_id(); });
  EXPECT_NE(ran_on, caller);
  EXPECT_EQ(background.run([] { return std::this_thread::get_id(); }), ran_on);
  EXPECT_EQ(background.run([] { return std::string("merged"); }), "merged");
}

TEST(BackgroundThread, HandsBackWhatATaskThrew) {
  rs::BackgroundThread background(0);
  EXPECT_THROW(background.run([]() -> int { throw std::runtime_error("damaged chunk"); }),
               std::runtime_error);
  EXPECT_EQ(background.run([] { return 7; }), 7);  // and goes on running tasks
}

TEST(BackgroundThread, RunsBelowTheCallersPriority) {
  const int caller = own_nice();
  if (caller > 19 - 5) GTEST_SKIP() << "already at nice " << caller;
  rs::BackgroundThread background(5);
  EXPECT_EQ(background.run([] { return own_nice(); }), caller + 5);
  EXPECT_EQ(own_nice(), caller);  // the caller's own priority is untouched
}

TEST(BackgroundThread, CallersOnSeveralThreadsEachGetTheirOwnResult) {
  rs::BackgroundThread background(0);
  std::vector<int> results(4, -1);
  std::vector<std::thread> callers;
  callers.reserve(4);
  for (int caller = 0; caller < 4; ++caller) {
    callers.emplace_back([&, caller] {
      for (int round = 0; round < 50; ++round)
        results[caller] = background.run([caller] { return caller; });
    });
  }
  for (auto& thread : callers)
    thread.join();
  EXPECT_EQ(results, (std::vector<int>{0, 1, 2, 3}));
}
