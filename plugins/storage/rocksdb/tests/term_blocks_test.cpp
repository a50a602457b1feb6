// Term blocks: the encoding round-trips and refuses damage; a directory finds a term's block;
// searches and equalities read them, read chunks written before them (one key per term) or before
// directories alike, and merging such chunks writes blocks and directories.
#include "chunks/term_blocks.hpp"

#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <functional>
#include <set>

#include "chunks/chunk_keys.hpp"
#include "chunks/chunk_postings.hpp"
#include "chunks/column_chunk.hpp"
#include "chunks/term_directory.hpp"
#include "eventsvc/sdk/error.hpp"
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

// A term is found in its block by the bytes it shares with the one before, not by reading every
// term up to it: for every term of blocks of terms that are prefixes of each other, and for
// strings between, before, after, inside and past them, the look-up answers as reading them all.
TEST(TermBlocks, ALookUpInABlockAnswersAsReadingEveryTermInOrder) {
  std::set<std::string> words;
  std::uint32_t seed = 7;
  const auto next = [&seed] { return seed = seed * 1103515245U + 12345U; };
  for (int i = 0; i < 600; ++i) {
    std::string word;
    const std::size_t length = 1 + next() % 9;
    for (std::size_t j = 0; j < length; ++j)
      word.push_back(static_cast<char>("ab\xc3\xa9z"[next() % 5]));
    words.insert(word);
  }
  std::vector<std::pair<std::string, std::string>> terms;
  for (const auto& word : words)
    terms.emplace_back(word, "p" + word);
  std::vector<std::string> asked(words.begin(), words.end());
  for (const auto& word : words) {
    asked.push_back(word + "a");
    asked.push_back(word + "\xff");
    asked.push_back(word.substr(0, word.size() - 1) + "\x01");
    asked.push_back(word.substr(0, word.size() / 2));
  }
  asked.insert(asked.end(), {"", "\x01", "\xff\xff", "zzzzzzzzzzzz"});
  for (const std::size_t block_bytes : {48, 256, 4096}) {
    for (const auto& [first, block] : encode_term_blocks(terms, block_bytes)) {
      std::vector<std::pair<std::string, std::string>> in_block;
      ASSERT_TRUE(for_each_term(block, [&](std::string_view term, std::string_view postings) {
        in_block.emplace_back(term, postings);
        return true;
      }));
      for (const auto& term : asked) {
        const auto held = std::find_if(in_block.begin(), in_block.end(),
                                       [&](const auto& entry) { return entry.first == term; });
        std::string_view postings;
        const TermLookup found = find_in_term_block(block, term, postings);
        ASSERT_EQ(found, held == in_block.end() ? TermLookup::absent : TermLookup::found)
            << "'" << term << "' in the block from '" << first << "'";
        if (held != in_block.end()) {
          EXPECT_EQ(postings, held->second);
        }
      }
    }
  }
  using namespace std::string_literals;
  std::string_view postings;
  EXPECT_EQ(find_in_term_block("\x01\x01"s
                               "a\x00"s,
                               "a", postings),
            TermLookup::damaged);  // shares past nothing
  EXPECT_EQ(find_in_term_block("\x00\x01"s
                               "a\x09"s,
                               "b", postings),
            TermLookup::damaged);  // postings past the end
}

// A chunk's header names its value postings by their content (the key of their decoded rows kept
// in memory, row_set_cache.hpp): the same postings the same id, the same rows holding other values
// another id, though every other field of the header is the same.
TEST(TermBlocks, AChunksHeaderNamesItsValuePostingsByTheirContent) {
  const auto values_id = [](const char* even, const char* odd) {
    ChunkBuilder builder;
    for (std::uint32_t row = 0; row < 100; ++row) {
      sdk::Record record;
      record.id = "r" + std::to_string(row);
      record.timestamp = row;
      record.payload = json::object{{"color", row % 2 == 0 ? even : odd}};
      builder.add(record, TokenCounts::of(record));
    }
    const auto entries = chunk_entries("t", 1, builder);
    const auto header = decode_chunk_header(entries.front().second);
    EXPECT_TRUE(header && header->values);
    return header ? header->values.value_or(0) : 0;
  };
  EXPECT_EQ(values_id("red", "blue"), values_id("red", "blue"));
  EXPECT_NE(values_id("red", "blue"), values_id("blue", "red"));
}

// Where a term's block is, asked as a reader does: the head, then the part it names.
std::string block_through_parts(const StoredTermDirectory& stored, TermIndex index,
                                std::string_view term) {
  TermDirectoryPart where;
  std::string_view directory = stored.head;
  if (const auto search = find_term_directory_part(stored.head, index, term, where)) {
    if (*search != BlockSearch::found)
      return *search == BlockSearch::absent ? "(absent)" : "(damaged)";
    const auto part = std::find_if(stored.parts.begin(), stored.parts.end(), [&](const auto& p) {
      return p.index == index && p.number == where.number;
    });
    EXPECT_NE(part, stored.parts.end());
    if (part == stored.parts.end()) return "";
    EXPECT_EQ(part->id, where.id);
    EXPECT_EQ(term_directory_id(part->bytes), part->id);
    EXPECT_TRUE(term_directory_intact(part->bytes));
    directory = part->bytes;
  }
  std::string_view first;
  switch (find_term_block(directory, index, term, first)) {
    case BlockSearch::found:
      return std::string(first);
    case BlockSearch::absent:
      return "(absent)";
    case BlockSearch::damaged:
      break;
  }
  return "(damaged)";
}

TEST(TermDirectory, FindsTheOnlyBlockThatMayHoldATerm) {
  const std::string directory = encode_term_directory({"apple", "kiwi", "pear"}, {"v\x01"
                                                                                  "b"});
  ASSERT_TRUE(term_directory_intact(directory));
  const StoredTermDirectory whole{directory, {}};
  const auto block_of = [&](TermIndex index, std::string_view term) {
    return block_through_parts(whole, index, term);
  };
  EXPECT_EQ(block_of(TermIndex::words, "aardvark"), "(absent)") << "before every block";
  EXPECT_EQ(block_of(TermIndex::words, "apple"), "apple");
  EXPECT_EQ(block_of(TermIndex::words, "banana"), "apple");
  EXPECT_EQ(block_of(TermIndex::words, "kiwi"), "kiwi");
  EXPECT_EQ(block_of(TermIndex::words, "orange"), "kiwi");
  EXPECT_EQ(block_of(TermIndex::words, "zucchini"), "pear") << "after the last first term";
  EXPECT_EQ(block_of(TermIndex::values,
                     "v\x01"
                     "a"),
            "(absent)");
  EXPECT_EQ(block_of(TermIndex::values,
                     "v\x01"
                     "c"),
            "v\x01"
            "b");

  const std::string empty = encode_term_directory({}, {});
  EXPECT_TRUE(term_directory_intact(empty));
  std::string_view first;
  EXPECT_EQ(find_term_block(empty, TermIndex::values, "x", first), BlockSearch::absent);
}

TEST(TermDirectory, ALargeDirectoryIsStoredInPartsThatFindTheSameBlocks) {
  std::vector<std::string> words;
  std::vector<std::string> values;
  for (int n = 0; n < 100; ++n)
    words.push_back("w" + std::to_string(1000 + n * 10));
  for (int n = 0; n < 300; ++n)
    values.push_back("v" + std::to_string(10000 + n * 10));
  const std::vector<std::string_view> word_views(words.begin(), words.end());
  const std::vector<std::string_view> value_views(values.begin(), values.end());
  const StoredTermDirectory stored = store_term_directory(word_views, value_views);
  ASSERT_EQ(stored.parts.size(), 2U + 5U) << "64 blocks a part";
  EXPECT_TRUE(term_directory_intact(stored.head));
  const StoredTermDirectory whole{encode_term_directory(word_views, value_views), {}};
  for (int n = 990; n < 2010; ++n) {
    const std::string term = "w" + std::to_string(n);
    ASSERT_EQ(block_through_parts(stored, TermIndex::words, term),
              block_through_parts(whole, TermIndex::words, term))
        << term;
  }
  for (int n = 9990; n < 13010; ++n) {
    const std::string term = "v" + std::to_string(n);
    ASSERT_EQ(block_through_parts(stored, TermIndex::values, term),
              block_through_parts(whole, TermIndex::values, term))
        << term;
  }
  EXPECT_EQ(block_through_parts(stored, TermIndex::words, "a"), "(absent)");
  EXPECT_EQ(block_through_parts(stored, TermIndex::values, "zz"), "v12990");

  // A small directory is stored whole; a head cut short is damaged.
  EXPECT_TRUE(store_term_directory({"a", "b"}, {"c"}).parts.empty());
  EXPECT_FALSE(term_directory_intact(stored.head.substr(0, stored.head.size() - 1)));
  TermDirectoryPart where;
  EXPECT_EQ(find_term_directory_part(stored.head.substr(0, stored.head.size() - 1),
                                     TermIndex::words, "w1500", where),
            BlockSearch::damaged);
}

TEST(TermDirectory, DamagedDirectoriesAreRefused) {
  const std::string directory = encode_term_directory({"apple", "kiwi"}, {"v"});
  EXPECT_FALSE(term_directory_intact(""));
  EXPECT_FALSE(term_directory_intact("\x02" + directory.substr(1))) << "another format";
  EXPECT_FALSE(term_directory_intact(directory.substr(0, directory.size() - 1))) << "cut short";
  EXPECT_FALSE(term_directory_intact(directory + "x")) << "bytes past the end";
  std::string backwards = directory;
  backwards[1 + 4] = 9;  // the first term "applekiwi", the second "": out of order
  EXPECT_FALSE(term_directory_intact(backwards));
  std::string_view first;
  EXPECT_EQ(find_term_block("\x02", TermIndex::words, "a", first), BlockSearch::damaged);
  EXPECT_NE(term_directory_id(directory), term_directory_id(directory + "x"));
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

  // Rewrites the columns family in one batch: `change(tenant, chunk, key, value, batch)` is called
  // for each key of a chunk (its header, its data) with the tenant and chunk number it names.
  void rewrite_chunk_keys(
      const std::function<void(std::string_view, std::uint64_t, const std::string&,
                               std::string_view, rocksdb::WriteBatch&)>& change) {
    auto& database = storage_->database();
    rocksdb::WriteBatch batch;
    {
      auto it = database.iterator(database.columns);
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        const std::string key = it->key().ToString();
        const auto tenant = tenant_of(key);
        if (!tenant || key.size() <= tenant->size() + 8) continue;
        const std::uint64_t chunk = read_u64(std::string_view(key).substr(tenant->size() + 1, 8));
        change(*tenant, chunk, key, it->value().ToStringView(), batch);
      }
    }  // no iterator outlives a reopened database
    database.write(batch, true);
  }

  // Removes every chunk's directory of blocks and its header's mention of it, as chunks were
  // written before directories; returns how many it removed.
  std::size_t forget_directories() {
    std::size_t removed = 0;
    rewrite_chunk_keys([&](std::string_view tenant, std::uint64_t chunk, const std::string& key,
                           std::string_view value, rocksdb::WriteBatch& batch) {
      auto& columns = storage_->database().columns;
      if (key == chunk_header_key(tenant, chunk)) {
        auto header = decode_chunk_header(value);
        ASSERT_TRUE(header);
        header->directory.reset();
        batch.Put(columns, key, encode_chunk_header(*header));
      } else if (key == term_directory_key(tenant, chunk)) {
        ++removed;
        batch.Delete(columns, key);
      }
    });
    return removed;
  }

  // Rewrites every chunk's blocks as one key per term, as chunks were written before blocks.
  void unblock_every_chunk() {
    forget_directories();
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

// Chunks written with blocks but before directories find a term's block by seeking: the same
// answers, and a merge gives the merged chunk a directory.
TEST_F(TermBlocksStorageTest, ChunksWrittenBeforeDirectoriesAnswerAlike) {
  const auto expected = answers();
  EXPECT_EQ(forget_directories(), 6U);
  EXPECT_EQ(forget_directories(), 0U);
  EXPECT_EQ(answers(), expected);
  EXPECT_GT(storage_->projector().merge_chunks(), 0U);
  EXPECT_GT(forget_directories(), 0U) << "the merged chunks have directories";
  EXPECT_EQ(answers(), expected);
}

// A filter or directory whose bytes are not the ones its chunk's header names (what a reader
// without a snapshot meets when a merge reuses the chunk's number) is neither used nor cached:
// here each says "nothing is in this chunk", and the answers stay the same.
TEST_F(TermBlocksStorageTest, AFilterOrDirectoryTheHeaderDoesNotNameIsNotUsed) {
  const auto expected = answers();
  std::size_t replaced = 0;
  rewrite_chunk_keys([&](std::string_view tenant, std::uint64_t chunk, const std::string& key,
                         std::string_view, rocksdb::WriteBatch& batch) {
    auto& columns = storage_->database().columns;
    if (key == term_directory_key(tenant, chunk)) {
      batch.Put(columns, key, encode_term_directory({"~"}, {"~"}));  // every term absent
      ++replaced;
    } else if (key == term_filter_key(tenant, chunk)) {
      batch.Put(columns, key, TermFilterBuilder().build());  // holds nothing
      ++replaced;
    }
  });
  EXPECT_EQ(replaced, 12U);
  open();  // nothing cached: the replaced bytes are what a read finds
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

// Current state asks a chunk's filter before its replaced rows: a value no chunk holds reads
// no chunk's replaced rows (here damaged in every chunk, which a read would report), while a
// value that one chunk holds reads that chunk's, and finds the damage.
TEST_F(TermBlocksStorageTest, CurrentStateReadsNoReplacedRowsOfAChunkItsFilterRulesOut) {
  std::size_t damaged = 0;
  rewrite_chunk_keys([&](std::string_view tenant, std::uint64_t chunk, const std::string& key,
                         std::string_view, rocksdb::WriteBatch& batch) {
    if (key != chunk_header_key(tenant, chunk)) return;
    // Every row of a chunk and far past its end.
    batch.Put(storage_->database().columns, replaced_key(tenant, chunk), std::string(4096, '\xff'));
    ++damaged;
  });
  EXPECT_EQ(damaged, 6U);
  open();  // nothing cached

  sdk::RecordQuery absent;
  absent.source = sdk::Source::current;
  absent.where = {{*sdk::FieldPath::parse("payload.color"), sdk::Op::eq, "purple"}};
  EXPECT_TRUE(read(absent).empty());

  sdk::RecordQuery present;
  present.source = sdk::Source::current;
  present.where = {{*sdk::FieldPath::parse("payload.text"), sdk::Op::eq, "fan diskette unique13"}};
  try {
    read(present);
    ADD_FAILURE() << "the damaged replaced rows of the chunk holding the value were not read";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.status(), 500);
    EXPECT_NE(error.message().find("replaced rows"), std::string::npos) << error.message();
  }
}

// Chunks with more distinct terms than one part of a filter covers (kTermFilterPartBlocks
// blocks): their filters are stored as a head and parts, and a reader with nothing cached reads a
// chunk's head and the one part its term falls in, not the whole filter.
class PartedFilterStorageTest : public TermBlocksStorageTest {
 protected:
  PartedFilterStorageTest() {
    projector_config_ = json::object{{"enabled", false},
                                     {"batch_writes", 1},
                                     {"merge_small_rows", 8192},
                                     {"merge_final_rows", 8192}};
  }

  void SetUp() override {
    open();
    // 2,500 events of 12 values found nowhere else and two words each: 35,000 terms a chunk,
    // about 680 blocks of a filter in 11 parts, and about 100 blocks of postings.
    for (int w = 0; w < 2; ++w) {
      std::vector<sdk::IncomingEvent> events;
      for (int i = 0; i < 2500; ++i) {
        const int n = w * 2500 + i;
        json::object data{{"note", "word" + std::to_string(n) + " other" + std::to_string(n)}};
        for (int field = 0; field < 11; ++field)
          data["f" + std::to_string(field)] = "v" + std::to_string(field) + "-" + std::to_string(n);
        events.push_back(event("p" + std::to_string(n), kT0 + n, std::move(data)));
      }
      storage_->accept(write_of("key-parted-" + std::to_string(w), events), kRender);
    }
    project();
  }

  std::string ids_where(const char* field, const std::string& value) {
    sdk::RecordQuery query;
    query.source = sdk::Source::history;
    query.where = {{*sdk::FieldPath::parse(field), sdk::Op::eq, json::value(value)}};
    std::string ids;
    for (const auto& record : read(query))
      ids += record.id + " ";
    return ids;
  }

  // The keys of the chunks' filters or directories (`directories`): heads and parts.
  struct SummaryKeys {
    std::size_t heads = 0;
    std::size_t head_bytes = 0;
    std::size_t parts = 0;
    std::size_t part_bytes = 0;
    std::size_t parts_named = 0;  // by the heads (filters)
  };
  SummaryKeys summary_keys(bool directories) {
    SummaryKeys keys;
    rewrite_chunk_keys([&](std::string_view tenant, std::uint64_t chunk, const std::string& key,
                           std::string_view value, rocksdb::WriteBatch&) {
      const std::string head =
          directories ? term_directory_key(tenant, chunk) : term_filter_key(tenant, chunk);
      if (key == head) {
        ++keys.heads;
        keys.head_bytes += value.size();
        TermDirectoryPart where;
        const bool parted =
            directories
                ? find_term_directory_part(value, TermIndex::values, "v3-7", where).has_value()
                : term_filter_part(value, TermIndex::values, "v3-7").has_value();
        EXPECT_TRUE(parted) << "stored in parts";
        if (!directories) keys.parts_named += (value.size() - 10) / 8;
      } else if (key.starts_with(head)) {
        ++keys.parts;
        keys.part_bytes += value.size();
        if (directories) {
          EXPECT_TRUE(term_directory_intact(value));
        }
      }
    });
    return keys;
  }

  // Overwrites every part of the chunks' filters or directories with zeros.
  void zero_parts(bool directories) {
    rewrite_chunk_keys([&](std::string_view tenant, std::uint64_t chunk, const std::string& key,
                           std::string_view value, rocksdb::WriteBatch& batch) {
      const std::string head =
          directories ? term_directory_key(tenant, chunk) : term_filter_key(tenant, chunk);
      if (key.starts_with(head) && key != head)
        batch.Put(storage_->database().columns, key, std::string(value.size(), '\0'));
    });
  }
};

TEST_F(PartedFilterStorageTest, FiltersAndDirectoriesInPartsAreReadAPartAtATime) {
  const SummaryKeys filters = summary_keys(false);
  EXPECT_EQ(filters.heads, 2U);
  EXPECT_GE(filters.parts, 2 * 10U);
  EXPECT_EQ(filters.parts_named, filters.parts);
  const SummaryKeys directories = summary_keys(true);
  EXPECT_EQ(directories.heads, 2U);
  EXPECT_GE(directories.parts, 4U);
  open();  // nothing cached
  const auto& cache = storage_->database().term_filters();
  const auto skips = cache.skips();
  EXPECT_EQ(ids_where("payload.f3", "v3-none"), "");
  EXPECT_EQ(cache.skips() - skips, 2U) << "both chunks' filters ruled the value out";
  EXPECT_LE(cache.bytes(), filters.head_bytes + 2 * 4096) << "a part of each filter, not all";
  EXPECT_GT(filters.part_bytes, filters.head_bytes + 2 * 4096);
  EXPECT_EQ(ids_where("payload.f3", "v3-700"), "p700 ");
  EXPECT_EQ(ids_where("payload.f10", "v10-2999"), "p2999 ");
  EXPECT_EQ(ids_where("payload.note", "word5 other5"), "p5 ");

  // Parts whose bytes are not the ones their head names (zeros: "nothing here", "no blocks") are
  // not used: the chunk may hold every term, and the term's block is sought.
  zero_parts(false);
  zero_parts(true);
  open();
  EXPECT_EQ(ids_where("payload.f3", "v3-700"), "p700 ");
  EXPECT_EQ(ids_where("payload.f10", "v10-2999"), "p2999 ");
  EXPECT_EQ(ids_where("payload.note", "word5 other5"), "p5 ");

  // Merged, the chunk has a filter and a directory of its own, and none of the parts of the ones
  // it replaced.
  EXPECT_GT(storage_->projector().merge_chunks(), 0U);
  const SummaryKeys merged = summary_keys(false);
  EXPECT_EQ(merged.heads, 1U);
  EXPECT_EQ(merged.parts, merged.parts_named);
  EXPECT_GE(merged.parts, filters.parts - 1);
  const SummaryKeys merged_directories = summary_keys(true);
  EXPECT_EQ(merged_directories.heads, 1U);
  EXPECT_GE(merged_directories.parts, directories.parts / 2);
  open();
  EXPECT_EQ(ids_where("payload.f3", "v3-700"), "p700 ");
  EXPECT_EQ(ids_where("payload.f10", "v10-2999"), "p2999 ");
  EXPECT_EQ(ids_where("payload.note", "word5 other5"), "p5 ");
  EXPECT_EQ(ids_where("payload.f3", "v3-none"), "");
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
