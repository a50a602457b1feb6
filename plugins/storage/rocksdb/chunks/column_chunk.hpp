// History in columns: every projection round writes, per tenant, one immutable chunk holding the
// versions it added to history, one column per field (the canonical fields, and every scalar leaf
// of payload and metrics, array elements by index). Aggregations read only the columns they need
// instead of whole records (column_reader.hpp). A chunk is written in the projecting batch,
// so it exists exactly when its records do.
//
//   columns  <tenant> 'C' <chunk:u64>                     -> header: rows, min and max timestamp,
//                                                             max ingested_at, the ids of the
//                                                             term filter, block directory and
//                                                             value postings
//            <tenant> 'H' <chunk:u64> 0x01 <column name>  -> column
//
// The headers are a contiguous catalogue, so the chunks of a time range are found by reading it
// alone. (Data directories from before kept each header as <tenant> 'H' <chunk> 0x00; opening
// them moves the headers once: migrate_chunk_headers().)
//
// Current state is history minus the rows a newer version replaced. Rows only ever stop being
// current (a newer version stays newer); each projection round adds the rows it replaced to
// their chunk's bitmap (bit r of byte r / 8: row r replaced), so a read of current state gets
// one small value per chunk:
//
//   columns  <tenant> 'S' <chunk:u64>                      -> replaced rows, a bitmap
//
// (Data directories from before kept a list per round, <tenant> 'S' <chunk> <round:u64> -> rows
// of 4 bytes each; they are read as they are and become a bitmap when the chunk is next touched.)
//
// Beside the fields, `#bytes` holds each row's record_json_size() less the JSON size of its
// verification state's name (which changes after the chunk is written): a pack reads it instead of
// the record. Chunks written before it lack it, and their records are read instead.
//
// A column is, for each row, a kind byte (absent, null, false, true, int64, uint64, double,
// string, container) followed by the 8-byte numbers of the numeric rows in row order, then a
// dictionary of the column's strings (their number, the end offset of each, their text) and each
// string row's dictionary index. `container` marks a
// row whose value at that path is an object or array: the column cannot answer for that row.
//
// A column of more rows than a page (page_rows, 8,192 by default) is kept in pages, so that a
// question about a few rows of a large chunk reads a few pages, not megabytes (ClickHouse's
// granules; PostgreSQL reads 8 kB pages). A column of wide rows has pages of fewer rows
// (kColumnPageValueBytes), so each column of a chunk has its own page rows. Its value is then a
// head:
//
//   0xFF (no kind byte is), <id:u64>, <page rows:u32>, flags (1: a container somewhere, 2: every
//   row a number, 4: every row a string), then per page <dictionary size:u32><stored:u8>
//
// and each page with a cell in it is a column of its own rows as above, after the head's id, at
//
//            <tenant> 'H' <chunk:u64> 0x09 <column name> <page:u32>   -> <id:u64> page
//
// A page's string indexes count from the sum of the dictionary sizes of the pages before it, so
// an index names one string across the column (a string on several pages has several). The id,
// a hash of the pages, tells a page of this head from one of an earlier chunk of the number.
#pragma once

#include <rocksdb/slice.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunks/chunk_keys.hpp"
#include "chunks/chunk_postings.hpp"
#include "chunks/string_table.hpp"
#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/record.hpp"
#include "store/little_endian.hpp"
#include "store/page_cache.hpp"
#include "store/string_hash.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// Each row's record_json_size() less the size of its verification name. No field path names it.
inline constexpr std::string_view kRecordBytesColumn = "#bytes";

enum class CellKind : std::uint8_t {
  absent,
  null,
  boolean_false,
  boolean_true,
  int64,
  uint64,
  double_number,
  string,
  container,
};

// Whether a cell of `kind` keeps its value in the column's numbers (8 bytes each).
constexpr bool holds_number(CellKind kind) {
  return kind == CellKind::int64 || kind == CellKind::uint64 || kind == CellKind::double_number;
}

// How many cells of a run of kind bytes are numbers, strings and containers, and the highest kind
// byte (a column is damaged when it is past `container`).
struct KindCounts {
  std::size_t numbers = 0;
  std::size_t strings = 0;
  std::size_t containers = 0;
  unsigned char highest = 0;
};
KindCounts count_kinds(const char* kinds, std::size_t size);

// Rows per page of a column, unless the chunk's writer is told otherwise.
inline constexpr std::uint32_t kColumnPageRows = 8192;
// The most bytes of numbers, string indexes and dictionary (each distinct string once) a page
// holds: a column whose rows are wider than 8 bytes (ids, addresses, user agents, free text) is
// kept in pages of half the rows, or a quarter, and so on, so that a question about one row of it
// reads about as much as one of a number column (8,192 numbers), not three times that.
inline constexpr std::uint32_t kColumnPageValueBytes = 65536;
// Pages are not made smaller than this for wide rows.
inline constexpr std::uint32_t kMinColumnPageRows = 64;
// The first byte of a paged column's head, and the head's flags.
inline constexpr unsigned char kPagedColumn = 0xFF;
inline constexpr std::uint8_t kPagedContainers = 1;
inline constexpr std::uint8_t kPagedNumbers = 2;
inline constexpr std::uint8_t kPagedStrings = 4;

// The JSON value of a cell of one of the scalar kinds (null, booleans, numbers) from its number
// bits; strings are the dictionary's, objects and arrays are not in a column.
sdk::json::value scalar_cell(CellKind kind, std::uint64_t number);

// The column name a field is stored under: canonical names as they are, payload.<path> and
// metrics.<path> as written; nullopt for `payload` and `metrics` themselves (never a column).
std::optional<std::string> column_name(const sdk::FieldPath& field);

struct ChunkHeader {
  std::uint32_t rows = 0;
  sdk::Millis min_timestamp = 0;
  sdk::Millis max_timestamp = 0;
  std::optional<sdk::Millis> max_ingested_at;  // absent in chunks written before it was kept
  // The id of the chunk's term filter (term_filter.hpp); absent in chunks written before them.
  std::optional<std::uint64_t> filter;
  // The id of its directory of term blocks (term_directory.hpp); absent in chunks written before.
  std::optional<std::uint64_t> directory;
  // The id of its value postings: a hash of their blocks, under which their decoded rows are
  // cached (row_set_cache.hpp); absent in chunks written before it.
  std::optional<std::uint64_t> values;
};

// A chunk as the catalogue lists it.
struct ChunkRef {
  std::uint64_t number = 0;
  ChunkHeader header;
};

std::string encode_replaced(const std::vector<bool>& rows);
// Marks the rows that a replaced-rows entry lists in `rows`: `key_tail` is what its key holds
// past replaced_key() (empty for the bitmap). False when the entry is damaged.
bool mark_replaced(std::string_view key_tail, std::string_view bytes, std::vector<bool>& rows);

// Where a version's cells are: its chunk and row.
struct RowRef {
  std::uint64_t chunk = 0;
  std::uint32_t row = 0;
};

// current_ids value: <instant><chunk:u64><row:u32>, the row as it was written or last purged:
// merges since are resolved through what they absorbed (absorbed_chunks.hpp). Databases from
// before column chunks hold the instant alone: no row.
std::string encode_current(sdk::Millis instant, const RowRef& row);
std::optional<RowRef> decode_current_row(std::string_view value);

std::string encode_chunk_header(const ChunkHeader& header);
std::optional<ChunkHeader> decode_chunk_header(std::string_view bytes);
// The chunk number of a header key whose catalogue prefix is `prefix_size` bytes; nullopt when
// the key is not one.
std::optional<std::uint64_t> header_chunk(std::string_view key, std::size_t prefix_size);

// The tenant prefix a key of the columns family begins with: <len:1><workspace><env:1>.
std::optional<std::string_view> tenant_of(std::string_view key);

class ColumnView;

// A column as ChunkBuilder::encode() gives it.
struct EncodedColumn {
  std::string name;
  std::string bytes;  // the column, or the head of a paged one
  std::vector<std::pair<std::uint32_t, std::string>> pages;  // (page, bytes): the stored ones
};

// Collects the records of one chunk and encodes its columns and postings (chunk_postings.hpp).
class ChunkBuilder {
 public:
  // Columns of more than `page_rows` rows are kept in pages, of fewer rows where they would hold
  // more than `page_value_bytes` of values.
  explicit ChunkBuilder(std::uint32_t page_rows = kColumnPageRows,
                        std::uint32_t page_value_bytes = kColumnPageValueBytes)
      : page_rows_(page_rows), page_value_bytes_(page_value_bytes) {}

  // Returns the record's row. `tokens`: the record's TokenCounts.
  std::uint32_t add(const sdk::Record& record, const TokenCounts& tokens);
  // Appends every row of a decoded chunk (merging chunks); its postings are merged apart
  // (merge_term_lists).
  // With `dropped` (a purge), the rows it marks are left out, and the header's time range is the
  // kept rows'.
  void append(const std::map<std::string, ColumnView>& columns, const ChunkHeader& header,
              const std::vector<bool>* dropped = nullptr);
  bool empty() const { return rows_ == 0; }
  ChunkHeader header() const { return header_; }
  // Every column, in name order; rows lacking a field are absent.
  std::vector<EncodedColumn> encode() const;
  PostingsBuilder& postings() { return postings_; }
  const PostingsBuilder& postings() const { return postings_; }
  // Value postings: per value_term(), the rows holding that value.
  PostingsBuilder& values() { return values_; }
  const PostingsBuilder& values() const { return values_; }

 private:
  struct Column {
    std::vector<CellKind> kinds;
    std::vector<std::uint64_t> numbers;  // raw bits of int64, uint64 and double cells
    std::vector<std::string_view> strings;
  };
  Column& column(std::string_view name);
  void cell(std::string_view name, const sdk::json::value& value);
  void string_cell(std::string_view name, std::string_view value);
  void integer_cell(std::string_view name, std::int64_t value);

  // The rows of each page of `column`: page_rows_, or fewer for wide rows.
  std::uint32_t rows_per_page(const Column& column) const;
  EncodedColumn encode_paged(std::string name, const Column& column) const;

  std::uint32_t page_rows_;
  std::uint32_t page_value_bytes_;
  std::uint32_t rows_ = 0;
  ChunkHeader header_;
  StringMap<Column> columns_;
  std::deque<std::string> text_;  // owns every string the columns point into; never moves them
  PostingsBuilder postings_;
  PostingsBuilder values_{false};
};

// One decoded column. Cells are read in row order through a Cursor. A paged column loads a page
// when a cursor first reads a cell of it, or a string of its dictionary is asked for, and keeps it:
// a view is read by one thread at a time.
class ColumnView {
 public:
  // Gives the stored bytes of page `page` of a paged column (nullptr when there are none).
  // `following`: it is the stored page next after the one loaded last, so a reader that keeps its
  // place in the column's run of keys finds it one step on.
  using PageLoader =
      std::function<std::unique_ptr<rocksdb::PinnableSlice>(std::uint32_t page, bool following)>;

  // An all-absent column (the chunk has no such field).
  explicit ColumnView(std::uint32_t rows) : rows_(rows) {}
  // nullopt when the bytes are damaged; a damaged dictionary entry, string index or page is found
  // where it is read (sdk::Error 500). `pages` loads the pages when the bytes are a head; with a
  // `cache`, pages are found there first and kept there as it admits them.
  static std::optional<ColumnView> decode(std::string bytes, std::uint32_t rows,
                                          PageLoader pages = {}, PageCacheScope cache = {});
  // The same over a value pinned in the block cache: read in place, not copied.
  static std::optional<ColumnView> decode(std::unique_ptr<rocksdb::PinnableSlice> pinned,
                                          std::uint32_t rows, PageLoader pages = {},
                                          PageCacheScope cache = {});

  bool has_containers() const { return has_containers_; }
  // Whether the chunk has this column at all (else every row is absent), and whether every row of
  // it is a number.
  bool stored() const { return bytes_ != nullptr || pinned_ != nullptr; }
  bool every_row_a_number() const { return uniform_numbers_; }
  bool paged() const { return pages_ != nullptr; }
  std::uint32_t dictionary_size() const;
  std::string_view dictionary_entry(std::uint32_t index) const;

  class Cursor {
   public:
    explicit Cursor(const ColumnView& column)
        : column_(column), view_(&column), end_(column.paged() ? 0 : column.kinds_.size()) {}
    // Moves to the next row; kind, number bits and dictionary index of that row.
    CellKind next() {
      if (row_ >= end_) [[unlikely]]
        return past_end();
      const std::size_t row = row_++;
      const auto kind = static_cast<CellKind>(view_->kinds_[row]);
      if (holds_number(kind)) {
        number_ = read_le(view_->numbers_, next_number_++ * 8, 8);
      } else if (kind == CellKind::string) {
        const auto local =
            static_cast<std::uint32_t>(read_le(view_->string_indexes_, next_string_++ * 4, 4));
        if (local >= view_->dictionary_.size()) damaged();
        string_index_ = base_ + local;
      }
      return kind;
    }
    // Moves past `rows` rows without decoding them (next() then gives the row after those).
    void skip(std::size_t rows);
    std::uint64_t number() const { return number_; }
    std::uint32_t string_index() const { return string_index_; }

    // Rows of one kind from the cursor's row on, all in one page, for a reader that takes a
    // column's cells a run at a time instead of a next() each; skip() moves past them.
    struct Run {
      CellKind kind = CellKind::absent;
      std::size_t rows = 0;
      std::string_view numbers;         // a number kind's: rows × 8 bytes, little-endian
      std::string_view string_indexes;  // strings': rows × 4 bytes, into the page's dictionary
      std::uint32_t base = 0;           // the page's first dictionary index in the column
      std::uint32_t entries = 0;        // the page's dictionary entries

      std::uint64_t number(std::size_t i) const { return read_le(numbers, i * 8, 8); }
      // The column's dictionary index of the run's row `i`.
      std::uint32_t string_index(std::size_t i) const {
        const auto local = static_cast<std::uint32_t>(read_le(string_indexes, i * 4, 4));
        if (local >= entries) damaged();
        return base + local;
      }
    };
    // The run at the cursor's row, of at most `most` rows (at least one). An absent row that no
    // page holds comes as a run of one.
    Run run(std::size_t most);

   private:
    // next() past the kinds of the view read: the next page's first, or an absent row.
    CellKind past_end();
    // Moves to the page of the cursor's row when the row is past the kinds of the view read;
    // whether that page has kinds to read there.
    bool enter_page();
    [[noreturn]] static void damaged();

    const ColumnView& column_;
    const ColumnView* view_;  // column_, or the page of it being read
    std::size_t row_ = 0;     // in view_
    std::size_t end_ = 0;     // view_'s rows with a kind
    std::size_t first_ = 0;   // view_'s first row in the column
    std::uint32_t page_ = kNoPage;
    std::uint32_t base_ = 0;  // view_'s first dictionary index in the column
    std::size_t next_number_ = 0;
    std::size_t next_string_ = 0;
    std::uint64_t number_ = 0;
    std::uint32_t string_index_ = 0;
  };

 private:
  static constexpr std::uint32_t kNoPage = 0xffffffff;

  // What a head gives of a paged column.
  struct Pages {
    PageLoader load;
    PageCacheScope cache;  // its cache is null when pages are not kept
    std::uint64_t id = 0;
    std::uint32_t rows = 0;            // per page (the last may have fewer)
    std::vector<std::uint32_t> bases;  // per page its first dictionary index, then the total
    std::vector<bool> stored;          // per page: has a cell (else it is all absent)
    std::vector<std::shared_ptr<const ColumnView>> loaded;  // shared with the cache
    std::uint32_t last = kNoPage;                           // the page loaded last
  };

  ColumnView() = default;

  // Parses `bytes` (owned by bytes_ or pinned_) into the views below.
  static std::optional<ColumnView> parse(ColumnView view, std::string_view bytes);
  static KindCounts count_blocks(ColumnView& view);
  std::size_t checkpoint_bytes() const {
    return (numbers_before_.size() + strings_before_.size()) * sizeof(std::uint32_t);
  }
  static std::optional<ColumnView> parse_head(ColumnView view, std::string_view bytes,
                                              PageLoader pages, PageCacheScope cache);
  // A page of a paged column, loaded when first asked for.
  const ColumnView& page(std::uint32_t index) const;

  // On the heap: the views below survive moves.
  std::unique_ptr<std::string> bytes_;
  std::unique_ptr<rocksdb::PinnableSlice> pinned_;
  bool uniform_numbers_ = false;  // every row a number: row i is number i
  bool uniform_strings_ = false;  // every row a string: row i is string i
  bool one_kind_ = false;         // every row of the same kind
  std::uint32_t rows_ = 0;
  std::string_view kinds_;
  std::string_view numbers_;         // 8 bytes each, little-endian
  std::string_view string_indexes_;  // 4 bytes each, little-endian
  StringTable dictionary_;
  bool has_containers_ = false;
  // Pages load lazily behind a const view, as a cache would.
  std::unique_ptr<Pages> pages_;
  // Where rows are of mixed kinds: per block of kKindBlock rows, the numbers and strings before
  // it, so that a cursor stepping far ahead counts the kinds of at most one block.
  static constexpr std::size_t kKindBlock = 256;
  std::vector<std::uint32_t> numbers_before_;
  std::vector<std::uint32_t> strings_before_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
