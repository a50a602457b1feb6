// Term blocks: the encoding round-trips and refuses damage; searches and equalities read them, read
// chunks written before them (one key per term) alike, and merging such chunks writes blocks.
#include "chunks/term_blocks.hpp"

#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include <set>

#include "chunks/chunk_postings.hpp"
#include "chunks/column_chunk.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "storage_fixture.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using namespace testing_support;


std::vector<std::pair<std::string, std::string>> unblocked(
    const std::vector<std::pair<std::string, std::string>>& blocks) {
  std::vector<std::pair<std::string, std::string>> terms;
  for (const auto& entry : blocks) {
    const std::string& first = entry.first;
    bool is_first = true;
    EXPECT_TRUE(for_each_term(entry.second, [&](std::string_view term, std::string_view postings) {
      if (is_first) {
        EXPECT_EQ(term, first);
      }
      is_first = false;
      terms.emplace_back(term, postings);
      return true;
    }));
  }
  return terms;
}

TEST(TermBlocks, RoundTripAcrossBlocksWithSharedPrefixes) {
  std::vector<std::pair<std::string, std::string>> terms;
  for (int i = 0; i < 300; ++i) {
    char term[32];
    std::snprintf(term, sizeof term, "term-%05d", i * 7);
    terms.emplace_back(term, std::string(static_cast<std::size_t>(i % 5), 'p'));
  }
  terms.emplace_back("u" + std::string(5000, 'x'), "big");  // larger than a block
  terms.emplace_back("v", "");
  const auto blocks = encode_term_blocks(terms, 256);
  EXPECT_GE(blocks.size(), 10U);
  EXPECT_EQ(unblocked(blocks), terms);
  EXPECT_EQ(unblocked(encode_term_blocks(terms)), terms);
  EXPECT_TRUE(encode_term_blocks({}).empty());
}

TEST(TermBlocks, DamagedBlocksAreRefused) {
  const auto visit = [](std::string_view, std::string_view) { return true; };
  using namespace std::string_literals;
  EXPECT_FALSE(
      for_each_term("\x01\x01"s
                    "a\x00"s,
                    visit));  // shares past nothing
  EXPECT_FALSE(
      for_each_term("\x00\x05"s
                    "ab"s,
                    visit));  // a term past the end
  EXPECT_FALSE(
      for_each_term("\x00\x01"s
                    "a\x09"s,
                    visit));  // postings past the end
  EXPECT_TRUE(for_each_term("", visit));
}

class TermBlocksStorageTest : public StorageFixture {
 protected:
  TermBlocksStorageTest() {
    // A chunk per write, merged four at a time, so that merges can be driven by hand.
    projector_config_ = json::object{{"enabled", false},
                                     {"batch_writes", 1},
                                     {"merge_small_rows", 64},
                                     {"merge_final_rows", 64}};
  }

  void SetUp() override {
    open();
    const char* words[] = {"disk", "full", "network", "down", "diskette", "dispatch", "fan"};
    const char* colors[] = {"red", "green", "blue"};
    for (int w = 0; w < 6; ++w) {
      std::vector<sdk::IncomingEvent> events;
      for (int i = 0; i < 5; ++i) {
        const int n = w * 5 + i;
        json::object data{{"text", std::string(words[n % 7]) + " " + words[(n * 3) % 7] +
                                       " unique" + std::to_string(n)},
                          {"color", colors[n % 3]},
                          {"ok", n % 4 == 0}};
        if (n % 5 == 0) data["maybe"] = nullptr;
        events.push_back(event("e" + std::to_string(n), kT0 + n, std::move(data)));
      }
      storage_->accept(write_of("key-blocks-" + std::to_string(w), events), kRender);
    }
    project();
  }

  // Every question's answer, as "id@offset" lists, one line per question.
  std::vector<std::string> answers() {
    std::vector<std::string> out;
    const auto ask = [&](sdk::RecordQuery query) {
      query.source = sdk::Source::history;
      query.where.push_back({*sdk::FieldPath::parse("timestamp"), sdk::Op::gte, json::value(kT0)});
      std::string line;
      for (const auto& record : read(query))
        line += record.id + " ";
      out.push_back(line);
    };
    for (const char* text : {"disk", "disk full", "unique17", "dis*", "network -down", "nothing",
                             "aaa", "zzz", "unique*"}) {
      sdk::RecordQuery query;
      query.text = toolkit::parse_text_query(text);
      ask(query);
      query.rank_by_text = true;
      ask(query);
    }
    const auto field = [](const char* name) { return *sdk::FieldPath::parse(name); };
    for (const auto& [path, op, operand] :
         std::vector<std::tuple<const char*, sdk::Op, json::value>>{
             {"payload.color", sdk::Op::eq, "green"},
             {"payload.color", sdk::Op::in, json::array{"red", "blue"}},
             {"payload.color", sdk::Op::eq, "purple"},
             {"payload.ok", sdk::Op::eq, true},
             {"payload.maybe", sdk::Op::eq, nullptr},
             {"stream", sdk::Op::eq, "s"}}) {
      sdk::RecordQuery query;
      query.where = {{field(path), op, operand}};
      ask(query);
    }
    return out;
  }

  // Rewrites every chunk's blocks as one key per term, as chunks were written before blocks.
  void unblock_every_chunk() {
    auto& database = storage_->database();
    rocksdb::WriteBatch batch;
    auto it = database.iterator(database.columns);
    std::size_t blocks = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string key = it->key().ToString();
      const auto tenant = tenant_of(key);
      ASSERT_TRUE(tenant);
      const std::size_t chunk_at = tenant->size() + 1;
      if (key.size() <= chunk_at + 8 || key[tenant->size()] != 'H') continue;
      const std::uint64_t chunk = read_u64(std::string_view(key).substr(chunk_at, 8));
      for (const auto index : {TermIndex::words, TermIndex::values}) {
        if (!key.starts_with(term_blocks_prefix(*tenant, chunk, index))) continue;
        ++blocks;
        batch.Delete(database.columns, key);
        ASSERT_TRUE(for_each_term(
            it->value().ToStringView(), [&](std::string_view term, std::string_view postings) {
              batch.Put(database.columns,
                        index == TermIndex::words ? chunk_postings_key(*tenant, chunk, term)
                                                  : chunk_values_key(*tenant, chunk, term),
                        rocksdb::Slice(postings.data(), postings.size()));
              return true;
            }));
      }
    }
    ASSERT_GE(blocks, 12U);  // words and values of six chunks
    database.write(batch, true);
  }

  // How many keys of each layout the columns family holds.
  std::pair<std::size_t, std::size_t> layouts() {
    auto& database = storage_->database();
    auto it = database.iterator(database.columns);
    std::size_t blocks = 0;
    std::size_t per_term = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string key = it->key().ToString();
      const auto tenant = tenant_of(key);
      if (!tenant || key.size() <= tenant->size() + 9 || key[tenant->size()] != 'H') continue;
      const char tag = key[tenant->size() + 9];
      if (tag == 0x04 || tag == 0x05) ++blocks;
      if (tag == 0x02 || tag == 0x03) ++per_term;
    }
    return {blocks, per_term};
  }
};

TEST_F(TermBlocksStorageTest, ChunksWrittenBeforeBlocksAnswerAlikeAndMergeIntoBlocks) {
  const auto expected = answers();
  EXPECT_EQ(expected[0], "e28 e21 e14 e7 e0 ") << "history, newest first";
  EXPECT_EQ(expected[4], "e17 ");
  EXPECT_EQ(layouts().second, 0U);

  unblock_every_chunk();
  EXPECT_EQ(layouts().first, 0U);
  EXPECT_EQ(answers(), expected);

  EXPECT_GT(storage_->projector().merge_chunks(), 0U);
  const auto [blocks, per_term] = layouts();
  EXPECT_GT(blocks, 0U);
  EXPECT_EQ(per_term, 0U);
  EXPECT_EQ(answers(), expected);
}

// A word or value that one chunk of six holds: the other five chunks' filters say "not here" and
// their postings are not read; merged chunks have filters of their own and answer alike.
TEST_F(TermBlocksStorageTest, ARareTermOpensOnlyTheChunksThatMayHoldIt) {
  const auto& filters = storage_->database().term_filters();
  const auto lookups = [&](sdk::RecordQuery query) {
    query.source = sdk::Source::history;
    const auto skips = filters.skips();
    const auto passes = filters.passes();
    std::string ids;
    for (const auto& record : read(query))
      ids += record.id + " ";
    return std::make_tuple(ids, filters.skips() - skips, filters.passes() - passes);
  };
  sdk::RecordQuery word;
  word.text = toolkit::parse_text_query("unique17");
  EXPECT_EQ(lookups(word), std::make_tuple(std::string("e17 "), 5U, 1U));
  sdk::RecordQuery value;
  value.where = {{*sdk::FieldPath::parse("payload.text"), sdk::Op::eq, "fan diskette unique13"}};
  EXPECT_EQ(lookups(value), std::make_tuple(std::string("e13 "), 5U, 1U));
  sdk::RecordQuery absent;
  absent.where = {{*sdk::FieldPath::parse("payload.color"), sdk::Op::eq, "purple"}};
  EXPECT_EQ(lookups(absent), std::make_tuple(std::string(), 6U, 0U));

  const auto expected = answers();
  EXPECT_GT(storage_->projector().merge_chunks(), 0U);
  EXPECT_EQ(answers(), expected);
  EXPECT_EQ(std::get<0>(lookups(word)), "e17 ");
  EXPECT_EQ(std::get<0>(lookups(value)), "e13 ");
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
