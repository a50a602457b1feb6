// The byte formats of a chunk's indexes: word postings, row sets (bitmap or gap list, whichever
// is smaller), replaced-rows bitmaps; and that damaged bytes are refused, never read past.
#include "chunks/chunk_postings.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/error.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

std::vector<Posting> random_rows(std::mt19937& random, std::uint32_t rows, int percent) {
  std::vector<Posting> out;
  for (std::uint32_t row = 0; row < rows; ++row) {
    if (static_cast<int>(random() % 100) < percent) {
      out.push_back({row, static_cast<std::uint32_t>(1 + random() % 5)});
    }
  }
  return out;
}

bool same(const std::vector<Posting>& a, const std::vector<Posting>& b, bool frequencies) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].row != b[i].row || (frequencies && a[i].frequency != b[i].frequency)) return false;
  }
  return true;
}

TEST(ChunkPostings, WordPostingsRoundTripWithAnOffset) {
  std::mt19937 random(5);
  for (const int percent : {0, 1, 30, 100}) {
    const auto postings = random_rows(random, 5000, percent);
    std::vector<Posting> decoded;
    ASSERT_TRUE(decode_postings(encode_postings(postings), decoded, 100));
    ASSERT_EQ(decoded.size(), postings.size());
    for (std::size_t i = 0; i < postings.size(); ++i) {
      EXPECT_EQ(decoded[i].row, postings[i].row + 100);
      EXPECT_EQ(decoded[i].frequency, postings[i].frequency);
    }
  }
}

TEST(ChunkPostings, RowSetsPickTheSmallerFormAndRoundTrip) {
  std::mt19937 random(9);
  for (const int percent : {0, 1, 5, 20, 60, 100}) {
    const auto rows = random_rows(random, 4096, percent);
    const std::string bytes = encode_row_set(rows);
    // A sparse set lists its gaps; a dense one is a bitmap of at most 513 bytes (the empty set:
    // the tag alone).
    EXPECT_EQ(bytes.front(), percent >= 20 || percent == 0 ? 'B' : 'L') << percent;
    if (bytes.front() == 'B') {
      EXPECT_LE(bytes.size(), 513U);
    }
    std::vector<Posting> decoded;
    ASSERT_TRUE(decode_row_set(bytes, decoded));
    EXPECT_TRUE(same(decoded, rows, false)) << percent;
    RowBits bits;
    bits.reset(4096, false);
    ASSERT_TRUE(mark_row_set(bytes, bits));
    EXPECT_EQ(bits.count(), rows.size());
    for (const auto& posting : rows)
      EXPECT_TRUE(bits.test(posting.row));
  }
}

TEST(ChunkPostings, DamagedBytesAreRefused) {
  std::vector<Posting> out;
  EXPECT_FALSE(decode_postings("", out));
  EXPECT_FALSE(decode_postings("\x05\x01\x01", out));  // five postings, one present
  EXPECT_FALSE(decode_postings(std::string("\x02\x01\x01\x00\x01", 5), out));  // a zero gap
  EXPECT_FALSE(decode_postings("\x02\x01\x01\x01", out));  // the second posting cut off
  EXPECT_TRUE(out.empty()) << "a damaged list appends none of its postings";
  EXPECT_FALSE(decode_row_set("", out));
  EXPECT_FALSE(decode_row_set("X\x01", out));
  RowBits bits;
  bits.reset(8, false);
  EXPECT_FALSE(mark_row_set("B\x01\x01", bits));  // row 8 of an 8-row chunk
  EXPECT_FALSE(mark_row_set("L\x01\x09", bits));
  std::vector<bool> rows(8, false);
  EXPECT_FALSE(mark_replaced({}, std::string("\x00\x01", 2), rows));    // row 8
  EXPECT_FALSE(mark_replaced("1234567", std::string(4, '\0'), rows));   // a list key cut short
  EXPECT_FALSE(mark_replaced("12345678", std::string(3, '\0'), rows));  // a row cut short
}

// Merging chunks: the lists of random chunks merged term by term equal the postings of one chunk
// built from all their rows, for word postings and row sets, and damage names its chunk.
TEST(ChunkPostings, MergedTermListsEqualOneChunkOfAllTheRows) {
  std::mt19937 random(7);
  const std::vector<std::string> vocabulary = {
      "a", "ab", "b", "disk", "full", "z", "\xc3\xa9t\xc3\xa9"};
  for (const bool frequencies : {true, false}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<ChunkTermList> lists;
      std::map<std::string, std::vector<Posting>> whole;
      std::uint32_t base = 0;
      for (int chunk = 0, chunks = 1 + static_cast<int>(random() % 5); chunk < chunks; ++chunk) {
        ChunkTermList list{static_cast<std::uint64_t>(100 + chunk), base, {}};
        const auto rows = static_cast<std::uint32_t>(1 + random() % 300);
        for (const auto& term : vocabulary) {  // in term order
          auto postings = random_rows(random, rows, static_cast<int>(random() % 40));
          if (postings.empty()) continue;
          if (!frequencies) {
            for (auto& posting : postings)
              posting.frequency = 1;
          }
          list.terms.emplace_back(
              term, frequencies ? encode_postings(postings) : encode_row_set(postings));
          for (const auto& posting : postings)
            whole[term].push_back({posting.row + base, posting.frequency});
        }
        base += rows;
        lists.push_back(std::move(list));
      }
      std::vector<std::pair<std::string, std::string>> expected;
      expected.reserve(whole.size());
      for (const auto& [term, postings] : whole)
        expected.emplace_back(term,
                              frequencies ? encode_postings(postings) : encode_row_set(postings));
      EXPECT_EQ(merge_term_lists(lists, frequencies), expected) << "trial " << trial;
    }
  }
  std::vector<ChunkTermList> damaged = {{7, 0, {{"a", encode_postings({{1, 1}})}}},
                                        {9, 10, {{"a", std::string("\x05\x01", 2)}}}};
  try {
    merge_term_lists(damaged, true);
    FAIL() << "damaged postings were merged";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.status(), 500);
    EXPECT_NE(std::string(error.what()).find("chunk 9"), std::string::npos) << error.what();
  }
}

TEST(ChunkPostings, ReplacedBitmapsRoundTrip) {
  std::vector<bool> rows(100, false);
  for (const std::size_t row : {0U, 7U, 8U, 63U, 64U, 99U})
    rows[row] = true;
  const std::string bytes = encode_replaced(rows);
  EXPECT_EQ(bytes.size(), 13U);
  std::vector<bool> back(100, false);
  ASSERT_TRUE(mark_replaced({}, bytes, back));
  EXPECT_EQ(back, rows);
  RowBits bits;
  bits.reset(100, false);
  ASSERT_TRUE(bits.set_bytes(bytes.data(), bytes.size()));
  EXPECT_EQ(bits.count(), 6U);
  EXPECT_TRUE(bits.test(99));
}

TEST(ChunkPostings, TokenCountsCountEachTokenOnceWithItsFrequency) {
  sdk::Record record;
  record.id = "e-1";
  record.type = "log";
  record.payload = sdk::json::object{{"message", "Disk full, disk FULL"}};
  const auto counts = TokenCounts::of(record);
  std::vector<std::pair<std::string, std::uint32_t>> expected{
      {"1", 1}, {"disk", 2}, {"e", 1}, {"full", 2}, {"log", 1}, {"message", 1}};
  EXPECT_EQ(counts.frequencies, expected);
  EXPECT_EQ(counts.length, 8U);
  // Only the length, as an erasure takes a record out of an index without per-word counters.
  const auto length = TokenCounts::length_of(record);
  EXPECT_EQ(length.length, 8U);
  EXPECT_TRUE(length.frequencies.empty());
  record.payload = sdk::json::object{{"日本", "東京 and 東京"}, {"empty", ""}, {"n", 3}};
  EXPECT_EQ(TokenCounts::length_of(record).length, TokenCounts::of(record).length);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
