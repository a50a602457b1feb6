// The merge policy's size classes: a chunk's tier grows by one each time its rows reach the next
// power of the fanout times small_rows, and chunks of final_rows or more are not merged again.
#include "chunk_merger.hpp"

#include <gtest/gtest.h>

namespace eventsvc::plugins::rocksdb_storage {
namespace {

TEST(ChunkMerger, TiersGrowByTheFanoutUpToFinalChunks) {
  const MergePolicy policy;  // 4096 small rows, fanout 4, final at 65536
  EXPECT_EQ(merge_tier(policy, 0), 0U);
  EXPECT_EQ(merge_tier(policy, 4095), 0U);
  EXPECT_EQ(merge_tier(policy, 4096), 0U);
  EXPECT_EQ(merge_tier(policy, 16383), 0U);
  EXPECT_EQ(merge_tier(policy, 16384), 1U);
  EXPECT_EQ(merge_tier(policy, 65535), 1U);
  EXPECT_EQ(merge_tier(policy, 65536), std::nullopt);

  const MergePolicy wide{100, 2, 1000000};
  EXPECT_EQ(merge_tier(wide, 199), 0U);
  EXPECT_EQ(merge_tier(wide, 200), 1U);
  EXPECT_EQ(merge_tier(wide, 400), 2U);
  EXPECT_EQ(merge_tier(wide, 799), 2U);
  EXPECT_EQ(merge_tier(wide, 819199), 12U);
  EXPECT_EQ(merge_tier(wide, 819200), 13U);
  EXPECT_EQ(merge_tier(wide, 1000000), std::nullopt);

  // Final rows equal to small rows: nothing but small runs is merged.
  const MergePolicy flat{4096, 4, 4096};
  EXPECT_EQ(merge_tier(flat, 4095), 0U);
  EXPECT_EQ(merge_tier(flat, 4096), std::nullopt);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
