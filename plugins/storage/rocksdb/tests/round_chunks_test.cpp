// A round's chunks built on the second thread are byte for byte the chunks built in line: the same
// rows per tenant, header, columns and term blocks; a round dropped before finish() stops cleanly.
#include "projection/round_chunks.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "chunks/chunk_keys.hpp"
#include "chunks/term_blocks.hpp"
#include "chunks/term_directory.hpp"

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
  TermFilterCache filters(1 << 20);
  RoundChunks round(kChunk, filters);
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
  // Each chunk's filter and directory are in the cache as the header names them, unread.
  const std::map<std::string, std::string> written(expected.begin(), expected.end());
  for (const auto& [tenant, chunk] : in_line) {
    const auto header = decode_chunk_header(written.at(chunk_header_key(tenant, kChunk)));
    ASSERT_TRUE(header && header->filter && header->directory);
    const auto unread = []() -> std::optional<std::string> {
      ADD_FAILURE() << "read back instead of kept";
      return std::nullopt;
    };
    const auto filter = filters.get(tenant, kChunk, *header->filter, unread, ChunkSummary::filter);
    ASSERT_NE(filter, nullptr);
    EXPECT_EQ(*filter, written.at(term_filter_key(tenant, kChunk)));
    const auto directory =
        filters.get(tenant, kChunk, *header->directory, unread, ChunkSummary::directory);
    ASSERT_NE(directory, nullptr);
    EXPECT_EQ(*directory, written.at(term_directory_key(tenant, kChunk)));
  }
}

TEST(RoundChunks, ARoundDroppedBeforeFinishingStops) {
  TermFilterCache filters(1 << 20);
  RoundChunks empty(1, filters);
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(empty.finish().empty());
  auto dropped = std::make_unique<RoundChunks>(2, filters);
  const auto record = record_at(1);
  dropped->add(
      "\x01"
      "a\x01",
      record, std::make_shared<const TokenCounts>(TokenCounts::of(*record)));
  dropped.reset();  // joins its thread
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
