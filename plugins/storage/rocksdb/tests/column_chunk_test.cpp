// The column format: cells of every kind round-trip through a chunk, whole or in pages (of fewer
// rows for wide columns), read row by row or stepping past runs of rows (counted 16 kinds at a
// time, with a tail); a paged column loads only the pages read; a damaged kind byte, head or page
// is refused; chunk headers of every vintage read back as written.
#include "chunks/column_chunk.hpp"

#include <gtest/gtest.h>
#include <rocksdb/slice.h>

#include <initializer_list>
#include <map>
#include <memory>
#include <random>

#include "eventsvc/sdk/error.hpp"
#include "store/little_endian.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

namespace json = sdk::json;

// The value of payload.v in row `row`: every kind the column knows, in an irregular pattern.
json::value value_of(std::uint32_t row, std::mt19937& random) {
  switch (random() % 8) {
    case 0:
      return json::value();  // null
    case 1:
      return row % 2 == 0;
    case 2:
      return static_cast<std::int64_t>(row) - 5000;
    case 3:
      return static_cast<double>(row) / 4.0;
    case 4:
      return json::string("s" + std::to_string(row % 37));
    case 5:
      return json::array{1, 2};  // a container
    case 6:
      return std::uint64_t{1} << 63U;
    default:
      return json::object{{"other", 1}};  // payload.v absent (payload.other present)
  }
}

struct Chunk {
  explicit Chunk(std::uint32_t page_rows) : builder(page_rows) {}
  std::vector<json::value> values;  // payload.v per row; an object where the row lacks it
  ChunkBuilder builder;
};

// `rows` rows of payload.v (value_of), and payload.early in the first 100 rows only.
Chunk build(std::uint32_t rows, std::uint32_t page_rows = kColumnPageRows) {
  std::mt19937 random(rows);
  Chunk chunk(page_rows);
  for (std::uint32_t row = 0; row < rows; ++row) {
    sdk::Record record;
    record.id = "r" + std::to_string(row);
    record.timestamp = row;
    json::value v = value_of(row, random);
    record.payload = v.is_object() ? v : json::value(json::object{{"v", v}});
    if (row < 100) record.payload.as_object()["early"] = static_cast<std::int64_t>(row);
    chunk.values.push_back(std::move(v));
    chunk.builder.add(record, TokenCounts::of(record));
  }
  return chunk;
}

// A column as encode() gave it, and the pages a reader loaded from it.
struct Encoded {
  std::string bytes;
  std::map<std::uint32_t, std::string> pages;
  std::vector<std::uint32_t> loads;
};

std::shared_ptr<Encoded> encoded(const ChunkBuilder& builder, const std::string& name) {
  auto out = std::make_shared<Encoded>();
  for (auto& column : builder.encode()) {
    if (column.name != name) continue;
    out->bytes = std::move(column.bytes);
    for (auto& [page, bytes] : column.pages)
      out->pages.emplace(page, std::move(bytes));
    return out;
  }
  ADD_FAILURE() << "no column " << name;
  return out;
}

ColumnView::PageLoader loader(std::shared_ptr<Encoded> column) {
  return [column](std::uint32_t page, bool) {
    column->loads.push_back(page);
    const auto it = column->pages.find(page);
    if (it == column->pages.end()) return std::unique_ptr<rocksdb::PinnableSlice>();
    auto bytes = std::make_unique<rocksdb::PinnableSlice>();
    bytes->PinSelf(it->second);
    return bytes;
  };
}

std::optional<ColumnView> decode(std::shared_ptr<Encoded> column, std::uint32_t rows) {
  return ColumnView::decode(column->bytes, rows, loader(column));
}

// The cells of `rows` (ascending), each followed by a space: a string as it is, else its number.
std::string cells_at(const ColumnView& view, std::initializer_list<std::uint32_t> rows) {
  std::string cells;
  ColumnView::Cursor cursor(view);
  std::uint32_t at = 0;
  for (const std::uint32_t row : rows) {
    cursor.skip(row - at);
    at = row + 1;
    const CellKind kind = cursor.next();
    cells += kind == CellKind::string ? std::string(view.dictionary_entry(cursor.string_index()))
                                      : std::to_string(cursor.number());
    cells += " ";
  }
  return cells;
}

std::string column_bytes(const ChunkBuilder& builder, const std::string& name) {
  return encoded(builder, name)->bytes;
}

void expect_cell(ColumnView::Cursor& cursor, const ColumnView& view, const json::value& value,
                 std::uint32_t row) {
  const CellKind kind = cursor.next();
  SCOPED_TRACE("row " + std::to_string(row));
  if (value.is_object()) {
    EXPECT_EQ(kind, CellKind::absent);
  } else if (value.is_null()) {
    EXPECT_EQ(kind, CellKind::null);
  } else if (value.is_bool()) {
    EXPECT_EQ(kind, value.get_bool() ? CellKind::boolean_true : CellKind::boolean_false);
  } else if (value.is_int64()) {
    ASSERT_EQ(kind, CellKind::int64);
    EXPECT_EQ(static_cast<std::int64_t>(cursor.number()), value.get_int64());
  } else if (value.is_uint64()) {
    ASSERT_EQ(kind, CellKind::uint64);
    EXPECT_EQ(cursor.number(), value.get_uint64());
  } else if (value.is_double()) {
    ASSERT_EQ(kind, CellKind::double_number);
    EXPECT_EQ(std::bit_cast<double>(cursor.number()), value.get_double());
  } else if (value.is_string()) {
    ASSERT_EQ(kind, CellKind::string);
    EXPECT_EQ(view.dictionary_entry(cursor.string_index()), value.get_string());
  } else {
    EXPECT_EQ(kind, CellKind::container);
  }
}

TEST(ColumnChunk, CellsOfEveryKindRoundTripRowByRowAndPastSkippedRuns) {
  // Whole columns, then columns of 2 to 157 pages.
  for (const auto& [rows, page_rows] :
       std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, kColumnPageRows},
                                                            {15, kColumnPageRows},
                                                            {17, kColumnPageRows},
                                                            {4080, kColumnPageRows},
                                                            {4097, kColumnPageRows},
                                                            {10000, kColumnPageRows},
                                                            {65, 64},
                                                            {1000, 64},
                                                            {10000, 64}}) {
    SCOPED_TRACE(std::to_string(rows) + " rows, pages of " + std::to_string(page_rows));
    const Chunk chunk = build(rows, page_rows);
    auto view = decode(encoded(chunk.builder, "payload.v"), rows);
    ASSERT_TRUE(view.has_value());
    EXPECT_EQ(view->paged(), rows > page_rows);
    EXPECT_TRUE(view->has_containers());

    ColumnView::Cursor every(*view);
    for (std::uint32_t row = 0; row < rows; ++row)
      expect_cell(every, *view, chunk.values[row], row);

    // Runs of every length up to past 16 * 255 kinds, then one row read.
    std::mt19937 random(rows + 1);
    ColumnView::Cursor skipping(*view);
    for (std::uint32_t row = 0; row < rows;) {
      const std::uint32_t run = random() % 3 == 0 ? random() % 5000 : random() % 40;
      if (row + run >= rows) break;
      skipping.skip(run);
      row += run;
      expect_cell(skipping, *view, chunk.values[row], row);
      ++row;
    }
  }
}

TEST(ColumnChunk, AKindPastContainerIsDamaged) {
  const Chunk chunk = build(5000, 8192);  // one page
  for (const std::uint32_t at : {0U, 17U, 4095U, 4999U}) {
    std::string bytes = column_bytes(chunk.builder, "payload.v");
    bytes[at] = static_cast<char>(static_cast<int>(CellKind::container) + 1);
    EXPECT_FALSE(ColumnView::decode(bytes, 5000).has_value()) << "kind byte " << at;
    bytes[at] = static_cast<char>(0xC8);
    EXPECT_FALSE(ColumnView::decode(bytes, 5000).has_value()) << "kind byte " << at;
  }
}

// Columns whose rows are all one kind (every id a string, every timestamp an int64) are read
// without counting their kinds; a row of another kind among them, or a kind past container in
// each, is still damage.
TEST(ColumnChunk, AColumnOfOneKindReadsBackAndAnotherKindInItIsDamaged) {
  constexpr std::uint32_t kRows = 5000;
  const Chunk chunk = build(kRows, 8192);  // one page
  for (const std::string name : {"id", "timestamp"}) {
    SCOPED_TRACE(name);
    const std::string bytes = column_bytes(chunk.builder, name);
    const auto view = ColumnView::decode(bytes, kRows);
    ASSERT_TRUE(view.has_value());
    ColumnView::Cursor cursor(*view);
    for (std::uint32_t row = 0; row < kRows; ++row) {
      const CellKind kind = cursor.next();
      if (name == "id") {
        ASSERT_EQ(kind, CellKind::string);
        EXPECT_EQ(view->dictionary_entry(cursor.string_index()), "r" + std::to_string(row));
      } else {
        ASSERT_EQ(kind, CellKind::int64);
        EXPECT_EQ(cursor.number(), row);
      }
    }
    const char other = static_cast<char>(name == "id" ? CellKind::int64 : CellKind::string);
    for (const std::uint32_t at : {0U, 63U, 64U, 4999U}) {
      std::string damaged = bytes;
      damaged[at] = other;
      EXPECT_FALSE(ColumnView::decode(damaged, kRows).has_value()) << "kind byte " << at;
    }
    std::string past = bytes;
    std::fill_n(past.begin(), kRows, static_cast<char>(static_cast<int>(CellKind::container) + 1));
    EXPECT_FALSE(ColumnView::decode(past, kRows).has_value());
  }
}

// A question about a few rows of a large chunk loads only their pages; a page without a cell of
// the column is not stored, and reads as absent without a load.
TEST(ColumnChunk, APagedColumnLoadsOnlyThePagesOfTheRowsRead) {
  const Chunk chunk = build(10000, 64);
  const auto values = encoded(chunk.builder, "payload.v");
  EXPECT_EQ(values->pages.size(), 157U);
  auto view = decode(values, 10000);
  ASSERT_TRUE(view && view->paged());
  ColumnView::Cursor cursor(*view);
  cursor.skip(5000);
  expect_cell(cursor, *view, chunk.values[5000], 5000);  // page 78
  cursor.skip(5);
  expect_cell(cursor, *view, chunk.values[5006], 5006);  // the same page
  cursor.skip(9990 - 5007);
  expect_cell(cursor, *view, chunk.values[9990], 9990);  // page 156, the last
  EXPECT_EQ(values->loads, (std::vector<std::uint32_t>{78, 156}));

  // payload.early: rows 0-99, two pages stored of 157.
  const auto early = encoded(chunk.builder, "payload.early");
  EXPECT_EQ(early->pages.size(), 2U);
  auto sparse = decode(early, 10000);
  ASSERT_TRUE(sparse);
  EXPECT_TRUE(sparse->every_row_a_number() == false && !sparse->has_containers());
  ColumnView::Cursor at(*sparse);
  at.skip(99);
  ASSERT_EQ(at.next(), CellKind::int64);
  EXPECT_EQ(at.number(), 99U);
  for (std::uint32_t row = 100; row < 10000; ++row)
    ASSERT_EQ(at.next(), CellKind::absent) << row;
  EXPECT_EQ(at.next(), CellKind::absent);  // past the column
  EXPECT_EQ(early->loads, (std::vector<std::uint32_t>{1}));

  // Every row of `timestamp` is a number, of `id` a string: dictionary indexes run across pages.
  auto timestamps = decode(encoded(chunk.builder, "timestamp"), 10000);
  ASSERT_TRUE(timestamps);
  EXPECT_TRUE(timestamps->every_row_a_number());
  const auto id_column = encoded(chunk.builder, "id");
  auto ids = decode(id_column, 10000);
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->dictionary_size(), 10000U);
  ColumnView::Cursor id(*ids);
  ColumnView::Cursor instant(*timestamps);
  for (std::uint32_t row = 0; row < 10000; row += 997) {
    id.skip(row == 0 ? 0 : 996);
    instant.skip(row == 0 ? 0 : 996);
    ASSERT_EQ(id.next(), CellKind::string);
    ASSERT_EQ(instant.next(), CellKind::int64);
    EXPECT_EQ(ids->dictionary_entry(id.string_index()), "r" + std::to_string(row));
    EXPECT_EQ(instant.number(), row);
  }
}

// A column of rows wider than a number has pages of fewer rows (halved until a page holds at most
// kColumnPageValueBytes of values, each distinct string once, and not below kMinColumnPageRows),
// so that one row of it costs about what one row of a number column costs; each column's head
// says its own page rows, and the columns of one chunk read back row for row.
TEST(ColumnChunk, AColumnOfWideRowsIsKeptInPagesOfFewerRows) {
  constexpr std::uint32_t kRows = 10000;
  ChunkBuilder builder;
  std::vector<std::string> words;
  std::vector<std::string> texts;
  for (std::uint32_t row = 0; row < kRows; ++row) {
    words.push_back("w" + std::string(34, 'a' + static_cast<char>(row % 26)) + std::to_string(row));
    texts.push_back(std::string(1000, 'x') + std::to_string(row));
    sdk::Record record;
    record.id = "r" + std::to_string(row);
    record.timestamp = row;
    record.payload = json::object{{"n", static_cast<std::int64_t>(row) * 1000},
                                  {"word", words.back()},
                                  {"text", texts.back()},
                                  {"agent", std::string(200, 'a') + std::to_string(row % 50)}};
    builder.add(record, TokenCounts::of(record));
  }
  const auto page_rows = [](const Encoded& column) {
    return static_cast<std::uint32_t>(read_le(column.bytes, 9, 4));
  };
  // 8 bytes a row: 65,536 bytes in 8,192 rows, as before.
  const auto numbers = encoded(builder, "payload.n");
  EXPECT_EQ(page_rows(*numbers), kColumnPageRows);
  EXPECT_EQ(numbers->pages.size(), 2U);
  // About 44 bytes a row (text and index): 1,024 rows, 45 kB.
  const auto word = encoded(builder, "payload.word");
  EXPECT_EQ(page_rows(*word), 1024U);
  EXPECT_EQ(word->pages.size(), 10U);
  // About 1 kB a row: the smallest pages.
  const auto text = encoded(builder, "payload.text");
  EXPECT_EQ(page_rows(*text), kMinColumnPageRows);
  EXPECT_EQ(text->pages.size(), (kRows + kMinColumnPageRows - 1) / kMinColumnPageRows);
  // 200 bytes a row, but 50 values: a page's dictionary holds each once, so pages of 8,192 rows.
  const auto agent = encoded(builder, "payload.agent");
  EXPECT_EQ(page_rows(*agent), kColumnPageRows);
  for (const auto& [page, bytes] : word->pages)
    EXPECT_LE(bytes.size(), 2 * kColumnPageValueBytes) << "page " << page;

  auto numbers_view = decode(numbers, kRows);
  auto word_view = decode(word, kRows);
  auto text_view = decode(text, kRows);
  ASSERT_TRUE(numbers_view && word_view && text_view);
  ColumnView::Cursor n(*numbers_view);
  ColumnView::Cursor w(*word_view);
  ColumnView::Cursor t(*text_view);
  for (std::uint32_t row = 0; row < kRows; row += 613) {
    const std::uint32_t skip = row == 0 ? 0 : 612;
    n.skip(skip);
    w.skip(skip);
    t.skip(skip);
    ASSERT_EQ(n.next(), CellKind::int64);
    EXPECT_EQ(n.number(), std::uint64_t{row} * 1000);
    ASSERT_EQ(w.next(), CellKind::string);
    EXPECT_EQ(word_view->dictionary_entry(w.string_index()), words[row]);
    ASSERT_EQ(t.next(), CellKind::string);
    EXPECT_EQ(text_view->dictionary_entry(t.string_index()), texts[row]);
  }
  // Rows 0, 613, ..., 9808 of 1,024-row pages: each page once, in order.
  std::vector<std::uint32_t> expected;
  for (std::uint32_t row = 0; row < kRows; row += 613) {
    if (expected.empty() || expected.back() != row / 1024) expected.push_back(row / 1024);
  }
  EXPECT_EQ(word->loads, expected);
}

// Pages parsed once are kept in a page cache and found there afterwards, under the column's id:
// the same cells, no load; another column's pages are its own; a cache of no bytes keeps nothing.
TEST(ColumnChunk, PagesAskedForAgainAreFoundParsedInThePageCache) {
  const Chunk chunk = build(1000, 64);
  const auto timestamps = encoded(chunk.builder, "timestamp");
  const auto ids = encoded(chunk.builder, "id");
  PageCache cache(1 << 20);
  // Rows 5, 200 and 900: pages 0, 3 and 14.
  const auto read = [&](const std::shared_ptr<Encoded>& column, PageCache& pages) {
    auto view =
        ColumnView::decode(column->bytes, 1000, loader(column),
                           PageCacheScope{&pages, "t/" + std::to_string(column->bytes.size())});
    EXPECT_TRUE(view);
    return view ? cells_at(*view, {5, 200, 900}) : std::string();
  };
  EXPECT_EQ(read(timestamps, cache), "5 200 900 ");
  EXPECT_GT(cache.bytes(), 0U);
  EXPECT_EQ(read(timestamps, cache), "5 200 900 ");
  EXPECT_EQ(timestamps->loads, (std::vector<std::uint32_t>{0, 3, 14})) << "found parsed";
  EXPECT_EQ(cache.hits(), 3U);
  // The same pages of another column: its own, loaded.
  EXPECT_EQ(read(ids, cache), "r5 r200 r900 ");
  EXPECT_EQ(ids->loads, (std::vector<std::uint32_t>{0, 3, 14}));

  PageCache none(0);
  for (int round = 0; round < 3; ++round)
    EXPECT_EQ(read(ids, none), "r5 r200 r900 ");
  EXPECT_EQ(ids->loads.size(), 12U);
  EXPECT_EQ(none.bytes(), 0U);
}

// A scan's pages, each read once, go where the next page to be dropped is: once the cache is full
// they push out one another, not the pages a question comes back to.
TEST(ColumnChunk, AScanThroughAFullPageCacheLeavesAQuestionsPagesInIt) {
  const Chunk chunk = build(1000, 64);
  const auto timestamps = encoded(chunk.builder, "timestamp");
  const auto ids = encoded(chunk.builder, "id");
  // Room for about four pages of 64 rows.
  PageCache cache(4 * (LruCache<ColumnView>::entry_bytes(PageCache::key("t/c", 0, 0, 64)) +
                       sizeof(ColumnView) + 64 * 9));
  const auto ask = [&] {
    auto view = ColumnView::decode(timestamps->bytes, 1000, loader(timestamps),
                                   PageCacheScope{&cache, "t/c", PageRead::lookup});
    ASSERT_TRUE(view);
    EXPECT_EQ(cells_at(*view, {5}), "5 ");
  };
  ask();
  ask();
  ASSERT_EQ(timestamps->loads, (std::vector<std::uint32_t>{0}));
  // Every page of the ids, once.
  auto scanned = ColumnView::decode(ids->bytes, 1000, loader(ids), PageCacheScope{&cache, "t/i"});
  ASSERT_TRUE(scanned);
  EXPECT_EQ(cells_at(*scanned, {999}), "r999 ");
  ColumnView::Cursor all(*scanned);
  for (std::uint32_t row = 0; row < 1000; ++row)
    EXPECT_EQ(all.next(), CellKind::string);
  EXPECT_EQ(ids->loads.size(), 16U);
  ask();
  EXPECT_EQ(timestamps->loads, (std::vector<std::uint32_t>{0}))
      << "the question's page was pushed out";
}

// Pages read at the rows a question's postings picked are kept on their first load: the second
// read finds them all parsed.
TEST(ColumnChunk, PagesOfAQuestionsRowsAreKeptOnTheirFirstLoad) {
  const Chunk chunk = build(1000, 64);
  const auto timestamps = encoded(chunk.builder, "timestamp");
  PageCache cache(1 << 20);
  const auto read = [&] {
    auto view = ColumnView::decode(timestamps->bytes, 1000, loader(timestamps),
                                   PageCacheScope{&cache, "t/c", PageRead::lookup});
    EXPECT_TRUE(view);
    return view ? cells_at(*view, {5, 200, 900}) : std::string();
  };
  EXPECT_EQ(read(), "5 200 900 ");
  EXPECT_EQ(read(), "5 200 900 ");
  EXPECT_EQ(timestamps->loads, (std::vector<std::uint32_t>{0, 3, 14})) << "loaded once each";
  EXPECT_EQ(cache.hits(), 3U);
}

TEST(PageCache, AdmitsAKeyOnItsSecondLoadWhileItIsRemembered) {
  PageCache cache(16 * 1024);  // remembers a few keys
  const auto key = [](std::uint32_t stored) { return PageCache::key("c", 7, stored, 64); };
  EXPECT_FALSE(cache.admits(key(1)));
  EXPECT_TRUE(cache.admits(key(1)));
  EXPECT_NE(key(1), PageCache::key("c", 8, 1, 64));
  EXPECT_NE(key(1), PageCache::key("c", 7, 1, 63));
  EXPECT_NE(key(1), PageCache::key("d", 7, 1, 64));
  // A scan of many pages, each once, makes the cache forget the first.
  for (std::uint32_t stored = 100; stored < 200; ++stored)
    EXPECT_FALSE(cache.admits(key(stored)));
  EXPECT_FALSE(cache.admits(key(1)));
  EXPECT_EQ(cache.find(key(1)), nullptr);
  EXPECT_EQ(cache.misses(), 1U);
}

// Two columns whose stored pages are the same pages, one after the other, have the same id, but
// not at the same page numbers: pages are kept by their place among the stored ones, so the page
// one column kept is never another page of the other.
TEST(PageCache, ColumnsOfTheSamePagesAtOtherPlacesDoNotShareThem) {
  const auto column = [](int absent_page) {
    ChunkBuilder builder(64);
    int stored = 0;
    for (std::uint32_t row = 0; row < 192; ++row) {
      sdk::Record record;
      record.id = "r" + std::to_string(row);
      record.timestamp = row;
      const int page = static_cast<int>(row / 64);
      record.payload = json::object{};
      if (page != absent_page)
        record.payload.as_object()["c"] = (page - (page > absent_page ? 1 : 0)) == 0 ? "x" : "y";
      if (row % 64 == 0 && page != absent_page) ++stored;
      builder.add(record, TokenCounts::of(record));
    }
    EXPECT_EQ(stored, 2);
    return encoded(builder, "payload.c");
  };
  const auto trailing = column(2);  // pages x, y, absent
  const auto leading = column(0);   // pages absent, x, y
  ASSERT_EQ(trailing->bytes.substr(1, 8), leading->bytes.substr(1, 8)) << "one id";
  PageCache cache(1 << 20);
  const auto cell = [&](const std::shared_ptr<Encoded>& encoded, std::uint32_t row) {
    auto view =
        ColumnView::decode(encoded->bytes, 192, loader(encoded), PageCacheScope{&cache, "t/c"});
    EXPECT_TRUE(view);
    ColumnView::Cursor cursor(*view);
    cursor.skip(row);
    EXPECT_EQ(cursor.next(), CellKind::string);
    return std::string(view->dictionary_entry(cursor.string_index()));
  };
  for (int round = 0; round < 3; ++round)
    EXPECT_EQ(cell(trailing, 64), "y");
  EXPECT_EQ(cache.hits(), 2U);
  EXPECT_EQ(cell(leading, 64), "x");
  EXPECT_EQ(cell(leading, 128), "y") << "the page the other column kept";
  EXPECT_EQ(cache.hits(), 3U);
}

// A page is read only under the head it was written with: a page of another chunk of the number
// (a merge rewrote it meanwhile), a missing page and a damaged head are refused.
TEST(ColumnChunk, APageOfAnotherHeadOrNoneIsDamaged) {
  const Chunk first = build(1000, 64);
  const Chunk second = build(1001, 64);
  const auto mine = encoded(first.builder, "timestamp");
  const auto other = encoded(second.builder, "timestamp");
  ASSERT_NE(mine->bytes, other->bytes);
  mine->pages[3] = other->pages[3];
  auto view = decode(mine, 1000);
  ASSERT_TRUE(view);
  ColumnView::Cursor cursor(*view);
  cursor.skip(64 * 3 - 1);
  EXPECT_EQ(cursor.next(), CellKind::int64);
  EXPECT_THROW(cursor.next(), sdk::Error);

  mine->pages.erase(5);
  ColumnView::Cursor missing(*view);
  missing.skip(64 * 5);
  EXPECT_THROW(missing.next(), sdk::Error);

  EXPECT_FALSE(
      ColumnView::decode(mine->bytes.substr(0, mine->bytes.size() - 1), 1000, loader(mine)));
  EXPECT_FALSE(ColumnView::decode(mine->bytes, 2000, loader(mine)));  // pages for 1,000 rows
  EXPECT_THROW(ColumnView::decode(mine->bytes, 1000), sdk::Error);    // and no way to load them
}

// Each header field came later than the ones before it: a header holds a prefix of them, and
// reads back the same whatever its vintage.
TEST(ChunkHeaderFormat, HeadersOfEveryVintageReadBackAsWritten) {
  const auto same = [](const ChunkHeader& a, const ChunkHeader& b) {
    return a.rows == b.rows && a.min_timestamp == b.min_timestamp &&
           a.max_timestamp == b.max_timestamp && a.max_ingested_at == b.max_ingested_at &&
           a.filter == b.filter && a.directory == b.directory && a.values == b.values;
  };
  ChunkHeader header{7, 100, 200, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  std::vector<std::size_t> sizes;
  for (int vintage = 0; vintage < 5; ++vintage) {
    if (vintage == 1) header.max_ingested_at = 300;
    if (vintage == 2) header.filter = 0x1234;
    if (vintage == 3) header.directory = 0x5678;
    if (vintage == 4) header.values = 0x9abc;
    const std::string bytes = encode_chunk_header(header);
    sizes.push_back(bytes.size());
    const auto read = decode_chunk_header(bytes);
    ASSERT_TRUE(read);
    EXPECT_TRUE(same(*read, header)) << "vintage " << vintage;
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{20, 28, 36, 44, 52}));
  // Later fields without earlier ones: ids without max_ingested_at (a merge of chunks from before
  // it was kept), a directory and values without a filter, values without a directory.
  header.max_ingested_at.reset();
  for (int without = 0; without < 3; ++without) {
    if (without == 1) header.filter.reset();
    if (without == 2) header.directory.reset();
    const auto read = decode_chunk_header(encode_chunk_header(header));
    ASSERT_TRUE(read);
    EXPECT_TRUE(same(*read, header)) << "without " << without;
  }
  EXPECT_FALSE(decode_chunk_header(std::string(43, '\0')));
  EXPECT_FALSE(decode_chunk_header(std::string(60, '\0')));
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
