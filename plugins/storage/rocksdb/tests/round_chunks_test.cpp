// A round's chunks built on the second thread are byte for byte the chunks built in line: the same
// rows per tenant, header, columns and term blocks; a round dropped before finish() stops cleanly.
#include "projection/round_chunks.hpp"

#include <gtest/gtest.h>

#include <map>

#include "chunks/term_blocks.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

namespace json = sdk::json;

std::shared_ptr<const sdk::Record> record_at(int n) {
  auto record = std::make_shared<sdk::Record>();
  record->id = "r" + std::to_string(n % 40);
  record->timestamp = 1000 + n;
  record->ingested_at = 2000 + n;
  record->type = n % 3 == 0 ? "alert" : "reading";
  record->stream = "s";
  record->payload =
      json::object{{"text", "word" + std::to_string(n % 7) + " unique" + std::to_string(n)},
                   {"n", n},
                   {"ok", n % 2 == 0}};
  return record;
}

TEST(RoundChunks, BuildsWhatTheProjectorWouldBuildInLine) {
  constexpr std::uint64_t kChunk = 77;
  RoundChunks round(kChunk);
  std::map<std::string, ChunkBuilder> in_line;
  for (int n = 0; n < 500; ++n) {
    const std::string tenant = n % 3 == 0 ? "\x01"
                                            "a\x01"
                                          : "\x01"
                                            "b\x01";
    const auto record = record_at(n);
    const auto tokens = std::make_shared<const TokenCounts>(TokenCounts::of(*record));
    const std::uint32_t expected_row = in_line[tenant].add(*record, *tokens);
    EXPECT_EQ(round.add(tenant, record, tokens), expected_row) << n;
  }
  std::vector<std::pair<std::string, std::string>> expected;
  for (const auto& [tenant, chunk] : in_line) {
    for (const auto& entry : chunk_entries(tenant, kChunk, chunk))
      expected.push_back(entry);
  }
  EXPECT_FALSE(round.empty());
  EXPECT_EQ(round.finish(), expected);
}

TEST(RoundChunks, ARoundDroppedBeforeFinishingStops) {
  RoundChunks empty(1);
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(empty.finish().empty());
  auto dropped = std::make_unique<RoundChunks>(2);
  const auto record = record_at(1);
  dropped->add(
      "\x01"
      "a\x01",
      record, std::make_shared<const TokenCounts>(TokenCounts::of(*record)));
  dropped.reset();  // joins its thread
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
