// Term filters: never a false "not here", few false "maybe", a filter of another format or
// damaged answers "maybe", and the cache keeps the most recently used filters within its bytes.
#include "store/term_filter.hpp"

#include <gtest/gtest.h>

#include <string>

namespace eventsvc::plugins::rocksdb_storage {
namespace {

std::string term(const char* kind, int n) {
  return std::string(kind) + "-" + std::to_string(n * 7919);
}

TEST(TermFilter, HoldsEveryTermAddedAndFewOthers) {
  TermFilterBuilder builder;
  for (int n = 0; n < 20000; ++n) {
    builder.add(TermIndex::words, term("word", n));
    builder.add(TermIndex::values, term("value", n));
  }
  const std::string filter = builder.build();
  // About ten bits per term.
  EXPECT_LE(filter.size(), 2 + 40000 * 10 / 8 + 64);
  for (int n = 0; n < 20000; ++n) {
    ASSERT_TRUE(term_filter_may_hold(filter, TermIndex::words, term("word", n))) << n;
    ASSERT_TRUE(term_filter_may_hold(filter, TermIndex::values, term("value", n))) << n;
  }
  int false_positives = 0;
  for (int n = 20000; n < 40000; ++n)
    false_positives += term_filter_may_hold(filter, TermIndex::words, term("word", n)) ? 1 : 0;
  // The same term in the other index is another term.
  for (int n = 0; n < 20000; ++n)
    false_positives += term_filter_may_hold(filter, TermIndex::values, term("word", n)) ? 1 : 0;
  EXPECT_LT(false_positives, 40000 * 3 / 100);  // about 1%
}

TEST(TermFilter, AnEmptyChunkHoldsNothing) {
  const std::string filter = TermFilterBuilder().build();
  EXPECT_FALSE(term_filter_may_hold(filter, TermIndex::words, "anything"));
  EXPECT_FALSE(term_filter_may_hold(filter, TermIndex::values, ""));
}

TEST(TermFilter, AFilterOfAnotherFormatOrDamagedMayHoldAnything) {
  std::string filter = TermFilterBuilder().build();
  EXPECT_TRUE(term_filter_may_hold(filter.substr(0, 10), TermIndex::words, "a"));
  EXPECT_TRUE(term_filter_may_hold(filter + "x", TermIndex::words, "a"));
  filter[0] = 2;
  EXPECT_TRUE(term_filter_may_hold(filter, TermIndex::words, "a"));
  EXPECT_TRUE(term_filter_may_hold("", TermIndex::words, "a"));
}

// Whether a stored filter may hold `term`, asked as a reader does: the head, then the part it
// names.
bool stored_may_hold(const StoredTermFilter& stored, TermIndex index, const std::string& term) {
  const auto part = term_filter_part(stored.head, index, term);
  if (!part) return term_filter_may_hold(stored.head, index, term);
  EXPECT_LT(part->number, stored.parts.size());
  const auto& [id, bytes] = stored.parts.at(part->number);
  EXPECT_EQ(part->id, id);
  EXPECT_EQ(term_filter_part_id(bytes), id);
  return term_filter_part_holds(bytes, *part);
}

TEST(TermFilter, ALargeFilterIsStoredInPartsThatAnswerAsTheWholeOne) {
  TermFilterBuilder builder;
  for (int n = 0; n < 20000; ++n)
    builder.add(TermIndex::values, term("value", n));
  const std::string whole = builder.build();
  const StoredTermFilter stored = store_term_filter(whole);
  // 200,000 bits: 391 blocks of 64 bytes, in 7 parts of at most 64 blocks (4 KiB).
  ASSERT_EQ(stored.parts.size(), 7U);
  EXPECT_EQ(stored.parts.front().second.size(), 4096U);
  EXPECT_EQ(stored.parts.back().second.size(), (391 - 6 * 64) * 64U);
  EXPECT_EQ(stored.head.size(), 10 + 7 * 8U);
  std::string joined;
  for (const auto& [id, bytes] : stored.parts)
    joined += bytes;
  EXPECT_EQ(joined, whole.substr(2)) << "the parts are the blocks of the whole filter";
  for (int n = 0; n < 40000; ++n) {
    ASSERT_EQ(stored_may_hold(stored, TermIndex::values, term("value", n)),
              term_filter_may_hold(whole, TermIndex::values, term("value", n)))
        << n;
  }
  // A head is not a whole filter: asked as one, it may hold anything.
  EXPECT_TRUE(term_filter_may_hold(stored.head, TermIndex::values, "absent"));
}

TEST(TermFilter, ASmallFilterIsStoredWhole) {
  TermFilterBuilder builder;
  for (int n = 0; n < 300; ++n)
    builder.add(TermIndex::words, term("word", n));
  const std::string whole = builder.build();
  const StoredTermFilter stored = store_term_filter(whole);
  EXPECT_EQ(stored.head, whole);
  EXPECT_TRUE(stored.parts.empty());
  EXPECT_FALSE(term_filter_part(stored.head, TermIndex::words, "word-0").has_value());
}

TEST(TermFilter, ADamagedHeadOrPartMayHoldAnything) {
  TermFilterBuilder builder;
  for (int n = 0; n < 20000; ++n)
    builder.add(TermIndex::words, term("word", n));
  const StoredTermFilter stored = store_term_filter(builder.build());
  EXPECT_FALSE(
      term_filter_part(stored.head.substr(0, stored.head.size() - 1), TermIndex::words, "a")
          .has_value());
  EXPECT_FALSE(term_filter_part(stored.head + "x", TermIndex::words, "a").has_value());
  // Find a term the filter rules out, then ask it of parts cut short.
  for (int n = 20000;; ++n) {
    const auto part = term_filter_part(stored.head, TermIndex::words, term("word", n));
    ASSERT_TRUE(part.has_value());
    const std::string& bytes = stored.parts.at(part->number).second;
    if (term_filter_part_holds(bytes, *part)) continue;
    EXPECT_TRUE(term_filter_part_holds("", *part));
    EXPECT_TRUE(term_filter_part_holds(bytes.substr(0, part->block * 64), *part));
    EXPECT_TRUE(term_filter_part_holds(bytes + "x", *part));
    break;
  }
}

TEST(TermFilter, AFiltersIdIsItsHash) {
  TermFilterBuilder one;
  one.add(TermIndex::words, "a");
  TermFilterBuilder other;
  other.add(TermIndex::words, "b");
  EXPECT_EQ(term_filter_id(one.build()), term_filter_id(one.build()));
  EXPECT_NE(term_filter_id(one.build()), term_filter_id(other.build()));
  EXPECT_NE(term_filter_id(""), 0U);
}

TEST(TermFilter, ContentIdsAreFixedByTheFormat) {
  // Headers on disk name filters and directories by these hashes (MurmurHash64A): a change of the
  // function would leave every chunk written before it without its filter and directory.
  EXPECT_EQ(content_id("abc", 0), 0x9cc9c33498a95efbULL);
  EXPECT_EQ(content_id("", 7), 0x6e80950782bdbe12ULL);
  EXPECT_EQ(content_id("hello world!", 42), 0xd6807ae4b30e7eedULL);
}

TEST(TermFilterCache, KeepsWhatAWriterPutsAsIfRead) {
  TermFilterCache cache(1000);
  const auto unread = []() -> std::optional<std::string> {
    ADD_FAILURE() << "read instead of kept";
    return std::nullopt;
  };
  cache.put("t", 1, 11, std::string(400, 'a'), ChunkSummary::filter);
  cache.put("t", 1, 12, std::string(300, 'b'), ChunkSummary::directory);
  EXPECT_EQ(*cache.get("t", 1, 11, unread, ChunkSummary::filter), std::string(400, 'a'));
  EXPECT_EQ(*cache.get("t", 1, 12, unread, ChunkSummary::directory), std::string(300, 'b'));
  EXPECT_EQ(cache.bytes(), 700U);
  // Within the capacity like what is read: the least recently used goes, one too large stays out.
  cache.put("t", 2, 21, std::string(400, 'c'), ChunkSummary::filter);
  EXPECT_EQ(cache.bytes(), 700U);
  cache.put("t", 3, 31, std::string(2000, 'd'), ChunkSummary::filter);
  EXPECT_EQ(cache.bytes(), 700U);
  int loads = 0;
  cache.get("t", 1, 11, [&]() -> std::optional<std::string> {
    ++loads;
    return std::string(400, 'a');
  });
  EXPECT_EQ(loads, 1);
}

TEST(TermFilterCache, KeepsTheMostRecentlyUsedWithinItsBytes) {
  TermFilterCache cache(1000);
  int loads = 0;
  const auto load = [&](char fill) {
    return [&loads, fill]() -> std::optional<std::string> {
      ++loads;
      return std::string(400, fill);
    };
  };
  EXPECT_EQ(*cache.get("t", 1, 11, load('a')), std::string(400, 'a'));
  EXPECT_EQ(*cache.get("t", 2, 22, load('b')), std::string(400, 'b'));
  EXPECT_EQ(loads, 2);
  EXPECT_EQ(*cache.get("t", 1, 11, load('x')), std::string(400, 'a')) << "cached";
  EXPECT_EQ(loads, 2);
  // A third filter passes the capacity: the least recently used (chunk 2) goes.
  cache.get("t", 3, 33, load('c'));
  EXPECT_EQ(cache.bytes(), 800U);
  cache.get("t", 1, 11, load('x'));
  EXPECT_EQ(loads, 3);
  EXPECT_EQ(*cache.get("t", 2, 22, load('b')), std::string(400, 'b'));
  EXPECT_EQ(loads, 4);
  // The same chunk with another id (merged since) and another tenant are other filters.
  EXPECT_EQ(*cache.get("t", 1, 12, load('d')), std::string(400, 'd'));
  EXPECT_EQ(*cache.get("u", 1, 11, load('e')), std::string(400, 'e'));
  EXPECT_EQ(loads, 6);
  // A chunk whose filter is not found is not cached; one larger than the cache is not kept.
  EXPECT_EQ(cache.get("t", 9, 99, [] { return std::optional<std::string>(); }), nullptr);
  EXPECT_EQ(
      cache.get("t", 8, 88, [] { return std::optional<std::string>(std::string(2000, 'z')); })
          ->size(),
      2000U);
  EXPECT_LE(cache.bytes(), 1000U);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
