#include "query/helper_thread.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace rs = eventsvc::plugins::rocksdb_storage;

TEST(HelperThread, RunsEachPartOnceAndPartZeroOnTheCaller) {
  rs::HelperThread helper;
  const auto caller = std::this_thread::get_id();
  std::set<std::thread::id> second_ran_on;
  for (int question = 0; question < 200; ++question) {
    std::array<int, 2> runs{};
    std::thread::id first_ran_on;
    helper.run_both([&](std::size_t part) {
      ++runs.at(part);
      if (part == 0) first_ran_on = std::this_thread::get_id();
      if (part == 1) second_ran_on.insert(std::this_thread::get_id());
    });
    ASSERT_EQ(runs, (std::array<int, 2>{1, 1}));
    ASSERT_EQ(first_ran_on, caller);
  }
  // Wherever part 1 ran, it ran on the caller or on one kept thread, never a new one each time.
  second_ran_on.erase(caller);
  EXPECT_LE(second_ran_on.size(), 1U);
}

TEST(HelperThread, TheSecondPartRunsBesideTheFirstWhenTheHelperIsFree) {
  rs::HelperThread helper;
  // Part 0 waits for part 1 to start: only a second thread can start it meanwhile. The wait is
  // bounded so that a helper that never runs it fails the test instead of hanging it.
  std::mutex mutex;
  std::condition_variable started;
  bool second_started = false;
  bool started_beside = false;
  helper.run_both([&](std::size_t part) {
    std::unique_lock lock(mutex);
    if (part == 1) {
      second_started = true;
      started.notify_all();
    } else {
      started_beside =
          started.wait_for(lock, std::chrono::seconds(30), [&] { return second_started; });
    }
  });
  EXPECT_TRUE(started_beside);
}

TEST(HelperThread, QuestionsOnSeveralThreadsEachRunBothPartsWhileTheHelperIsBusy) {
  rs::HelperThread helper;
  constexpr int kCallers = 4;
  constexpr int kQuestions = 300;
  std::vector<std::array<std::atomic<int>, 2>> runs(kCallers * kQuestions);
  std::vector<std::thread> callers;
  callers.reserve(kCallers);
  for (int caller = 0; caller < kCallers; ++caller) {
    callers.emplace_back([&, caller] {
      for (int question = 0; question < kQuestions; ++question) {
        auto& counted = runs[caller * kQuestions + question];
        helper.run_both([&](std::size_t part) { ++counted.at(part); });
      }
    });
  }
  for (auto& thread : callers)
    thread.join();
  for (const auto& counted : runs) {
    ASSERT_EQ(counted[0].load(), 1);
    ASSERT_EQ(counted[1].load(), 1);
  }
}

TEST(HelperThread, HandsBackWhatEitherPartThrewAndGoesOn) {
  rs::HelperThread helper;
  EXPECT_THROW(helper.run_both([](std::size_t part) {
    if (part == 1) throw std::runtime_error("damaged chunk");
  }),
               std::runtime_error);
  EXPECT_THROW(helper.run_both([](std::size_t part) {
    if (part == 0) throw std::invalid_argument("damaged chunk");
  }),
               std::invalid_argument);
  std::array<int, 2> runs{};
  helper.run_both([&](std::size_t part) { ++runs.at(part); });
  EXPECT_EQ(runs, (std::array<int, 2>{1, 1}));
}
