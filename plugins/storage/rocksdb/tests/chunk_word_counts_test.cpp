#include <gtest/gtest.h>

#include <string>

#include "chunks/text_scorer.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

ChunkRef chunk_of(std::uint64_t number, std::uint32_t rows, std::uint64_t filter,
                  std::uint64_t values) {
  ChunkRef chunk;
  chunk.number = number;
  chunk.header.rows = rows;
  chunk.header.filter = filter;
  chunk.header.values = values;
  return chunk;
}

TEST(ChunkWordCounts, AChunksCountIsReadOnceAndAChunkRewrittenUnderItsNumberIsReadAgain) {
  ChunkWordCounts counts(1 << 20);
  int reads = 0;
  const auto count = [&](std::uint64_t rows) {
    return [&reads, rows] {
      ++reads;
      return rows;
    };
  };
  const ChunkRef chunk = chunk_of(7, 4096, 11, 12);
  EXPECT_EQ(counts.rows_with("w1", chunk, "preceded", count(3)), 3U);
  EXPECT_EQ(counts.rows_with("w1", chunk, "preceded", count(99)), 3U);
  EXPECT_EQ(reads, 1);

  // Another word, tenant, or the same number holding other rows (a merge, a purge): read.
  EXPECT_EQ(counts.rows_with("w1", chunk, "modal", count(5)), 5U);
  EXPECT_EQ(counts.rows_with("w2", chunk, "preceded", count(6)), 6U);
  EXPECT_EQ(counts.rows_with("w1", chunk_of(7, 16384, 11, 12), "preceded", count(8)), 8U);
  EXPECT_EQ(counts.rows_with("w1", chunk_of(7, 4096, 21, 12), "preceded", count(9)), 9U);
  EXPECT_EQ(counts.rows_with("w1", chunk_of(7, 4096, 11, 22), "preceded", count(10)), 10U);
  EXPECT_EQ(reads, 6);

  // A chunk from before content ids is read every time.
  ChunkRef legacy;
  legacy.number = 3;
  legacy.header.rows = 100;
  EXPECT_EQ(counts.rows_with("w1", legacy, "preceded", count(1)), 1U);
  EXPECT_EQ(counts.rows_with("w1", legacy, "preceded", count(2)), 2U);
  EXPECT_EQ(reads, 8);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
