// Background work below the priority of the threads that answer requests: a thread lowers itself
// alone, and RocksDB's compactions run on threads so lowered.
#include "store/thread_priority.hpp"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "storage_fixture.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using namespace testing_support;

int own_nice() {
  return getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
}

// The nice values of this process's threads named `name`, from /proc (field 19 of a task's stat).
std::vector<int> nice_of_threads_named(const std::string& name) {
  std::vector<int> nices;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string thread_name;
    std::getline(comm, thread_name);
    if (thread_name != name) continue;
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    std::istringstream fields(line.substr(line.rfind(')') + 2));
    std::string field;
    for (int i = 3; i < 19 && fields >> field; ++i) {
    }
    int nice = 0;
    if (fields >> nice) nices.push_back(nice);
  }
  return nices;
}

TEST(ThreadPriority, LowersTheCallingThreadAlone) {
  const int caller = own_nice();
  if (caller > 19 - 3) GTEST_SKIP() << "already at nice " << caller;
  int lowered = caller;
  std::thread([&] {
    lower_thread_priority(3);
    lowered = own_nice();
  }).join();
  EXPECT_EQ(lowered, caller + 3);
  EXPECT_EQ(own_nice(), caller);
}

class CompactionPriorityTest : public StorageFixture {};

TEST_F(CompactionPriorityTest, CompactionsRunBelowTheRequestThreadsPriority) {
  const int caller = own_nice();
  if (caller > 19 - kBackgroundNice) GTEST_SKIP() << "already at nice " << caller;
  for (int w = 0; w < 3; ++w) {
    storage_->accept(write_of("key-" + std::to_string(w),
                              {event("e" + std::to_string(w), kT0 + w, json::object{{"n", w}})}),
                     kRender);
    project();
    // Each write's keys in a table file of their own, so that the compaction below has work.
    ASSERT_TRUE(storage_->database().db().Flush(rocksdb::FlushOptions()).ok());
  }
  ASSERT_TRUE(storage_->database()
                  .db()
                  .CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr)
                  .ok());
  const auto nices = nice_of_threads_named("rocksdb:low");
  ASSERT_FALSE(nices.empty()) << "no compaction thread";
  EXPECT_NE(std::find(nices.begin(), nices.end(), caller + kBackgroundNice), nices.end())
      << "the thread that compacted runs at nice " << caller + kBackgroundNice;
  EXPECT_EQ(own_nice(), caller);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
