// The erasure ledger: each erasure once (a replay of its key adds nothing), read back as written,
// private to its owner, and a line a crash cut short neither read nor joined to the next one.
#include "erasure/erasure_ledger.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace eventsvc::host {
namespace {

LedgerEntry entry(const std::string& id) {
  return {id,
          {"acme", sdk::Environment::live},
          "key-" + id,
          "k1",
          1795336200000,
          sdk::json::object{{"where", sdk::json::object{{"payload.user.id", "u-42"}}}}};
}

TEST(ErasureLedger, KeepsEachErasureOnceAndReadsItBack) {
  testing::TempDir dir;
  const auto path = dir.path() / "ledger" / "erasures.jsonl";
  {
    ErasureLedger ledger(path);
    ledger.record(entry("era_0000000000000001"));
    ledger.record(entry("era_0000000000000001"));  // the replay of its key
    ledger.record(entry("era_0000000000000002"));
  }
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  ErasureLedger reopened(path);
  reopened.record(entry("era_0000000000000002"));  // known after a restart too
  const auto entries = ErasureLedger::read(path);
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries[0].erasure_id, "era_0000000000000001");
  EXPECT_EQ(entries[0].tenant.workspace, "acme");
  EXPECT_EQ(entries[0].tenant.environment, sdk::Environment::live);
  EXPECT_EQ(entries[0].idempotency_key, "key-era_0000000000000001");
  EXPECT_EQ(entries[0].received_at, 1795336200000);
  EXPECT_EQ(entries[0].request.at("where").at("payload.user.id"), "u-42");
  EXPECT_EQ(entries[1].erasure_id, "era_0000000000000002");
}

TEST(ErasureLedger, ALineCutShortByACrashIsSkippedAndTheNextStartsOnItsOwn) {
  testing::TempDir dir;
  const auto path = dir.path() / "erasures.jsonl";
  {
    ErasureLedger ledger(path);
    ledger.record(entry("era_0000000000000001"));
  }
  std::ofstream(path, std::ios::app) << R"({"erasure_id":"era_00000000000000)";  // cut short
  ErasureLedger ledger(path);
  ledger.record(entry("era_0000000000000003"));
  const auto entries = ErasureLedger::read(path);
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries[1].erasure_id, "era_0000000000000003");
  EXPECT_TRUE(ErasureLedger::read(dir.path() / "none").empty());
}

}  // namespace
}  // namespace eventsvc::host
