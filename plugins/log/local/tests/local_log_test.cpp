// The local log keeps the promises of sdk/durable_log.hpp on one server: an append is durable and
// answers once per key, claims are taken once, readers see one order and never an entry below one
// still in flight, and what the server has verified is trimmed away, across restarts.
#include "local_log.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "eventsvc/sdk/error.hpp"
#include "support/plugin_context.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::log {
namespace {

std::unique_ptr<LocalLog> open_log(const std::filesystem::path& dir) {
  return std::make_unique<LocalLog>(testing::plugin_context(sdk::manifest_of<LocalLog>(), {}, dir));
}

// An append of `claims` under `key`, whose record names the duplicates it was given, e.g.
// "write:a,b" with "dup:01" when the second event was a duplicate.
sdk::LogAppend append_of(const std::string& key, std::vector<std::string> claims,
                         sdk::Millis at = 1000) {
  sdk::LogAppend append;
  append.tenant = "tenant";
  append.idempotency_key = key;
  append.receipt_id = "req_" + key;
  append.received_at = at;
  append.replay_after = at - 10000;  // a window that holds every answer of these tests
  append.claims = std::move(claims);
  append.record = [key](const std::vector<bool>& duplicate) {
    std::string flags;
    for (const bool d : duplicate)
      flags += d ? '1' : '0';
    return sdk::LogRecord{"write " + key, "receipt " + key, "body " + key + " dup:" + flags};
  };
  return append;
}

std::vector<std::string> receipts_of(const std::vector<sdk::LogEntry>& entries) {
  std::vector<std::string> ids;
  ids.reserve(entries.size());
  for (const auto& entry : entries)
    ids.push_back(entry.receipt_id);
  return ids;
}

TEST(LocalLog, AnswersAKeyOnceAndCountsClaimsTakenBeforeOrEarlierInTheAppend) {
  testing::TempDir dir;
  auto log = open_log(dir.path());
  EXPECT_EQ(log->append(append_of("k1", {"a", "b", "a"})).body, "body k1 dup:001");
  const auto again = log->append(append_of("k1", {"c"}));
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(again.body, "body k1 dup:001");
  EXPECT_EQ(log->append(append_of("k2", {"b", "c"})).body, "body k2 dup:10");

  const auto entries = log->read_after({}, 10);
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries[0].tenant, "tenant");
  EXPECT_EQ(entries[0].receipt_id, "req_k1");
  EXPECT_EQ(entries[0].write, "write k1");
  EXPECT_EQ(entries[0].receipt, "receipt k1");
  EXPECT_EQ(entries[0].position.size(), log->position_size());
  EXPECT_LT(entries[0].position, entries[1].position);
  EXPECT_EQ(receipts_of(log->read_after(entries[0].position, 10)),
            std::vector<std::string>{"req_k2"});
  EXPECT_TRUE(log->read_after(entries[1].position, 10).empty());

  const auto found = log->find_receipt("tenant", "req_k2");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->position, entries[1].position);
  EXPECT_EQ(found->receipt, "receipt k2");
  EXPECT_TRUE(found->write.empty());
  EXPECT_FALSE(log->find_receipt("other", "req_k2"));
}

TEST(LocalLog, AKeyInFlightIs409AndNoReaderPassesAnAppendInFlight) {
  testing::TempDir dir;
  auto log = open_log(dir.path());
  auto first = append_of("slow", {"a"});
  std::vector<std::string> seen_meanwhile;
  first.record = [&](const std::vector<bool>&) {
    try {
      log->append(append_of("slow", {"b"}));
      ADD_FAILURE() << "a key in flight was taken twice";
    } catch (const sdk::Error& error) {
      EXPECT_EQ(error.status(), 409);
    }
    // A later append completes first; a claim in flight is a duplicate for it.
    EXPECT_EQ(log->append(append_of("fast", {"a", "c"})).body, "body fast dup:10");
    seen_meanwhile = receipts_of(log->read_after({}, 10));
    return sdk::LogRecord{"w", "r", "body slow"};
  };
  EXPECT_EQ(log->append(first).body, "body slow");
  EXPECT_TRUE(seen_meanwhile.empty());
  EXPECT_EQ(receipts_of(log->read_after({}, 10)),
            (std::vector<std::string>{"req_slow", "req_fast"}));
}

TEST(LocalLog, AFailedRecordLeavesTheKeyAndClaimsUnused) {
  testing::TempDir dir;
  auto log = open_log(dir.path());
  auto failing = append_of("k", {"a"});
  failing.record = [](const std::vector<bool>&) -> sdk::LogRecord {
    throw sdk::Error::bad_request("refused");
  };
  EXPECT_THROW(log->append(failing), sdk::Error);
  EXPECT_EQ(log->append(append_of("k", {"a"})).body, "body k dup:0");
  EXPECT_EQ(receipts_of(log->read_after({}, 10)), std::vector<std::string>{"req_k"});
}

TEST(LocalLog, TrimsWhatWasPublishedAndKeepsItsPlaceAcrossRestarts) {
  testing::TempDir dir;
  sdk::LogPosition second;
  {
    auto log = open_log(dir.path());
    for (const char* key : {"k1", "k2", "k3"})
      log->append(append_of(key, {key}));
    const auto entries = log->read_after({}, 10);
    second = entries[1].position;
    log->publish(second);
    EXPECT_EQ(receipts_of(log->read_after({}, 10)), std::vector<std::string>{"req_k3"});
    EXPECT_FALSE(log->find_receipt("tenant", "req_k1"));
    EXPECT_TRUE(log->find_receipt("tenant", "req_k3"));
    EXPECT_FALSE(log->held_back(entries[2].position));
  }
  {
    auto log = open_log(dir.path());
    EXPECT_EQ(receipts_of(log->read_after({}, 10)), std::vector<std::string>{"req_k3"});
    // Claims and answers outlive their entries.
    EXPECT_TRUE(log->append(append_of("k1", {})).replayed);
    EXPECT_EQ(log->append(append_of("k4", {"k1", "k4"})).body, "body k4 dup:10");
    const auto entries = log->read_after(second, 10);
    EXPECT_EQ(receipts_of(entries), (std::vector<std::string>{"req_k3", "req_k4"}));
    log->publish(entries.back().position);
    EXPECT_TRUE(log->read_after({}, 10).empty());
  }
  // Everything trimmed: the next entry still sorts after every one before it.
  auto log = open_log(dir.path());
  log->append(append_of("k5", {"k5"}));
  const auto entries = log->read_after({}, 10);
  ASSERT_EQ(receipts_of(entries), std::vector<std::string>{"req_k5"});
  EXPECT_GT(entries[0].position, second);
}

TEST(LocalLog, ABackupHoldsTrimmingAndItsCopyOpensAsTheLog) {
  testing::TempDir dir;
  testing::TempDir backup;
  auto log = open_log(dir.path() / "live");
  for (const char* key : {"k1", "k2"})
    log->append(append_of(key, {key}));
  const auto entries = log->read_after({}, 10);

  // What the storage publishes while its own copy is taken is not trimmed until the backup ends.
  log->begin_backup();
  log->publish(entries[0].position);
  EXPECT_EQ(receipts_of(log->read_after({}, 10)), (std::vector<std::string>{"req_k1", "req_k2"}));
  ASSERT_TRUE(log->back_up(backup.path() / "copy"));
  log->end_backup();
  log->publish(entries[0].position);
  EXPECT_EQ(receipts_of(log->read_after({}, 10)), std::vector<std::string>{"req_k2"});

  // The copy is the log at the backup: both entries, answers and claims.
  auto copy = open_log(backup.path() / "copy");
  EXPECT_EQ(receipts_of(copy->read_after({}, 10)), (std::vector<std::string>{"req_k1", "req_k2"}));
  EXPECT_TRUE(copy->append(append_of("k2", {})).replayed);
  EXPECT_EQ(copy->append(append_of("k3", {"k1", "k3"})).body, "body k3 dup:10");
}

TEST(LocalLog, ForgetsAnswersCreatedBeforeTheExpiry) {
  testing::TempDir dir;
  auto log = open_log(dir.path());
  log->append(append_of("old", {"a"}, 1000));
  log->append(append_of("new", {"b"}, 5000));
  log->expire_answers(2000);
  EXPECT_FALSE(log->append(append_of("old", {"a"}, 6000)).replayed);
  EXPECT_TRUE(log->append(append_of("new", {"b"}, 6000)).replayed);
}

TEST(LocalLog, AReaderWaitsOnlyWhileNothingWasAppendedSinceItsRead) {
  testing::TempDir dir;
  auto log = open_log(dir.path());
  log->read_after({}, 10);
  EXPECT_FALSE(log->wait_for_appends(1));
  log->append(append_of("k", {"a"}));
  EXPECT_TRUE(log->wait_for_appends(60000));
  log->read_after({}, 10);
  EXPECT_FALSE(log->wait_for_appends(1));
}

TEST(LocalLog, AFailedAppendWakesAReaderAsASuccessfulOneDoes) {
  testing::TempDir dir;
  auto log = open_log(dir.path());
  log->read_after({}, 10);
  auto failing = append_of("k", {"a"});
  failing.record = [](const std::vector<bool>&) -> sdk::LogRecord {
    throw sdk::Error::unavailable("the storage could not prepare it", 1);
  };
  EXPECT_THROW(log->append(failing), sdk::Error);
  // A reader held below the failed append's number may pass it now.
  EXPECT_TRUE(log->wait_for_appends(60000));
}

TEST(LocalLog, RefusesAPositionItNeverIssued) {
  testing::TempDir dir;
  testing::TempDir other;
  sdk::LogPosition copied;
  {
    auto log = open_log(dir.path());
    for (const char* key : {"k1", "k2", "k3"})
      log->append(append_of(key, {key}));
    copied = log->read_after({}, 10).back().position;
  }
  // A storage that copied that log, handed an empty one (its directory replaced): it must not skip
  // to the position it holds, nor trim up to it.
  auto replaced = open_log(other.path());
  replaced->append(append_of("k4", {"k4"}));
  for (const auto& position : {copied, sdk::LogPosition(16, '\0')}) {
    try {
      replaced->read_after(position, 10);
      ADD_FAILURE() << "read after a position never issued";
    } catch (const sdk::Error& error) {
      EXPECT_EQ(error.status(), 500);
      EXPECT_NE(error.message().find("a position this local log never issued"), std::string::npos);
    }
    EXPECT_THROW(replaced->publish(position), sdk::Error);
  }
  EXPECT_EQ(receipts_of(replaced->read_after({}, 10)), std::vector<std::string>{"req_k4"});
}

TEST(LocalLogConfig, AnEmptyPathIsRefusedNamingTheKey) {
  testing::TempDir dir;
  try {
    LocalLog log(testing::plugin_context(sdk::manifest_of<LocalLog>(), {{"path", ""}}, dir.path()));
    ADD_FAILURE() << "an empty path was taken";
  } catch (const sdk::Error& error) {
    EXPECT_NE(error.message().find("plugins.test.config.path: name the directory"),
              std::string::npos)
        << error.message();
  }
}

}  // namespace
}  // namespace eventsvc::plugins::log
