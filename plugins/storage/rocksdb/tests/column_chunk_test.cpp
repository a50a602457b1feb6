// The column format: cells of every kind round-trip through a chunk, read row by row or stepping
// past runs of rows (counted 16 kinds at a time, with a tail), and a damaged kind byte is refused;
// chunk headers of every vintage read back as written.
#include "chunks/column_chunk.hpp"

#include <gtest/gtest.h>

#include <random>

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
  std::vector<json::value> values;  // payload.v per row; an object where the row lacks it
  ChunkBuilder builder;
};

Chunk build(std::uint32_t rows) {
  std::mt19937 random(rows);
  Chunk chunk;
  for (std::uint32_t row = 0; row < rows; ++row) {
    sdk::Record record;
    record.id = "r" + std::to_string(row);
    record.timestamp = row;
    json::value v = value_of(row, random);
    record.payload = v.is_object() ? v : json::value(json::object{{"v", v}});
    chunk.values.push_back(std::move(v));
    chunk.builder.add(record, TokenCounts::of(record));
  }
  return chunk;
}

std::string column_bytes(const ChunkBuilder& builder, const std::string& name) {
  for (const auto& [column, bytes] : builder.encode()) {
    if (column == name) return bytes;
  }
  ADD_FAILURE() << "no column " << name;
  return {};
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
  for (const std::uint32_t rows : {1U, 15U, 17U, 4080U, 4097U, 10000U}) {
    SCOPED_TRACE(std::to_string(rows) + " rows");
    const Chunk chunk = build(rows);
    auto view = ColumnView::decode(column_bytes(chunk.builder, "payload.v"), rows);
    ASSERT_TRUE(view.has_value());
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
  const Chunk chunk = build(5000);
  for (const std::uint32_t at : {0U, 17U, 4095U, 4999U}) {
    std::string bytes = column_bytes(chunk.builder, "payload.v");
    bytes[at] = static_cast<char>(static_cast<int>(CellKind::container) + 1);
    EXPECT_FALSE(ColumnView::decode(bytes, 5000).has_value()) << "kind byte " << at;
    bytes[at] = static_cast<char>(0xC8);
    EXPECT_FALSE(ColumnView::decode(bytes, 5000).has_value()) << "kind byte " << at;
  }
}

// Each header field came later than the ones before it: a header holds a prefix of them, and
// reads back the same whatever its vintage.
TEST(ChunkHeaderFormat, HeadersOfEveryVintageReadBackAsWritten) {
  const auto same = [](const ChunkHeader& a, const ChunkHeader& b) {
    return a.rows == b.rows && a.min_timestamp == b.min_timestamp &&
           a.max_timestamp == b.max_timestamp && a.max_ingested_at == b.max_ingested_at &&
           a.filter == b.filter && a.directory == b.directory;
  };
  ChunkHeader header{7, 100, 200, std::nullopt, std::nullopt, std::nullopt};
  std::vector<std::size_t> sizes;
  for (int vintage = 0; vintage < 4; ++vintage) {
    if (vintage == 1) header.max_ingested_at = 300;
    if (vintage == 2) header.filter = 0x1234;
    if (vintage == 3) header.directory = 0x5678;
    const std::string bytes = encode_chunk_header(header);
    sizes.push_back(bytes.size());
    const auto read = decode_chunk_header(bytes);
    ASSERT_TRUE(read);
    EXPECT_TRUE(same(*read, header)) << "vintage " << vintage;
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{20, 28, 36, 44}));
  // A filter and a directory without max_ingested_at (a merge of chunks from before it was kept),
  // and a directory without a filter.
  header.max_ingested_at.reset();
  for (int without_filter = 0; without_filter < 2; ++without_filter) {
    if (without_filter == 1) header.filter.reset();
    const auto read = decode_chunk_header(encode_chunk_header(header));
    ASSERT_TRUE(read);
    EXPECT_TRUE(same(*read, header)) << "without a filter: " << without_filter;
  }
  EXPECT_FALSE(decode_chunk_header(std::string(43, '\0')));
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
