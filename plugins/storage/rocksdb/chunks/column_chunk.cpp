#include "chunks/column_chunk.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <span>
#include <unordered_set>

#include "chunks/chunk_keys.hpp"
#include "eventsvc/sdk/cells.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/field_walk.hpp"
#include "eventsvc/toolkit/record_json.hpp"
#include "store/key_codec.hpp"
#include "store/little_endian.hpp"
#include "store/term_filter.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

constexpr sdk::Millis kNoIngestedAt = std::numeric_limits<sdk::Millis>::min();

// Appends the column of `rows` rows whose first kinds are `kinds` (the rest absent), with the
// numbers and strings of those rows; returns the size of its dictionary.
std::uint32_t append_rows(std::string& bytes, std::span<const CellKind> kinds, std::uint32_t rows,
                          std::span<const std::uint64_t> numbers,
                          std::span<const std::string_view> strings) {
  bytes.reserve(bytes.size() + rows + numbers.size() * 8 + strings.size() * 4 + 64);
  for (const CellKind kind : kinds)
    bytes.push_back(static_cast<char>(kind));
  bytes.append(rows - kinds.size(), static_cast<char>(CellKind::absent));
  for (const auto number : numbers)
    append_u64_le(bytes, number);
  // The dictionary: the distinct strings in order, found by one sort of the cells' strings
  // (each cell then takes the index of its string's run).
  std::vector<std::uint32_t> by_text(strings.size());
  for (std::uint32_t i = 0; i < by_text.size(); ++i)
    by_text[i] = i;
  std::sort(by_text.begin(), by_text.end(),
            [&](std::uint32_t a, std::uint32_t b) { return strings[a] < strings[b]; });
  std::vector<std::string_view> ordered;
  std::vector<std::uint32_t> index_of(strings.size());
  for (const auto i : by_text) {
    if (ordered.empty() || ordered.back() != strings[i]) ordered.push_back(strings[i]);
    index_of[i] = static_cast<std::uint32_t>(ordered.size() - 1);
  }
  append_string_table(bytes, ordered);  // the dictionary
  for (const auto index : index_of)
    append_u32_le(bytes, index);
  return static_cast<std::uint32_t>(ordered.size());
}

}  // namespace

sdk::json::value scalar_cell(CellKind kind, std::uint64_t number) {
  switch (kind) {
    case CellKind::boolean_false:
      return false;
    case CellKind::boolean_true:
      return true;
    case CellKind::int64:
      return static_cast<std::int64_t>(number);
    case CellKind::uint64:
      return number;
    case CellKind::double_number:
      return std::bit_cast<double>(number);
    default:
      return nullptr;
  }
}

std::optional<std::string> column_name(const sdk::FieldPath& field) {
  if (field.root != sdk::FieldPath::Root::canonical && field.segments.empty()) return std::nullopt;
  return field.text;
}

std::optional<std::string_view> tenant_of(std::string_view key) {
  if (key.empty()) return std::nullopt;
  const std::size_t size = 1 + static_cast<unsigned char>(key[0]) + 1;
  if (key.size() <= size) return std::nullopt;
  return key.substr(0, size);
}

std::optional<std::uint64_t> header_chunk(std::string_view key, std::size_t prefix_size) {
  if (key.size() != prefix_size + 8) return std::nullopt;
  return read_u64(key.substr(prefix_size, 8));
}

std::string encode_replaced(const std::vector<bool>& rows) {
  std::size_t last = rows.size();
  while (last > 0 && !rows[last - 1])
    --last;
  std::string out((last + 7) / 8, '\0');
  for (std::size_t row = 0; row < last; ++row) {
    if (rows[row]) out[row / 8] = static_cast<char>(out[row / 8] | (1U << (row % 8)));
  }
  return out;
}

bool mark_replaced(std::string_view key_tail, std::string_view bytes, std::vector<bool>& rows) {
  if (key_tail.empty()) {
    for (std::size_t byte = 0; byte < bytes.size(); ++byte) {
      const auto bits = static_cast<unsigned char>(bytes[byte]);
      for (unsigned bit = 0; bit < 8; ++bit) {
        if ((bits & (1U << bit)) == 0) continue;
        const std::size_t row = byte * 8 + bit;
        if (row >= rows.size()) return false;
        rows[row] = true;
      }
    }
    return true;
  }
  if (key_tail.size() != 8 || bytes.size() % 4 != 0) return false;  // a list, from before
  for (std::size_t i = 0; i < bytes.size(); i += 4) {
    const auto row = read_le(bytes, i, 4);
    if (row >= rows.size()) return false;
    rows[row] = true;
  }
  return true;
}

std::string encode_current(sdk::Millis instant, const RowRef& row) {
  std::string value;
  append_instant(value, instant);
  append_u64(value, row.chunk);
  append_u32(value, row.row);
  return value;
}

std::optional<RowRef> decode_current_row(std::string_view value) {
  if (value.size() != 20) return std::nullopt;
  return RowRef{read_u64(value.substr(8)), read_u32(value.substr(16))};
}

std::string encode_chunk_header(const ChunkHeader& header) {
  std::string out;
  append_u32_le(out, header.rows);
  append_u64_le(out, static_cast<std::uint64_t>(header.min_timestamp));
  append_u64_le(out, static_cast<std::uint64_t>(header.max_timestamp));
  // The optional fields in order, a filter only after max_ingested_at, which is then
  // kNoIngestedAt when it is unknown (a merge of chunks written before it was kept).
  if (header.max_ingested_at || header.filter || header.directory || header.values) {
    append_u64_le(out, static_cast<std::uint64_t>(header.max_ingested_at.value_or(kNoIngestedAt)));
  }
  // Each id only after those before it, 0 for one that is absent (ids are never 0); chunks are
  // given all three at once (term_blocks.cpp).
  if (header.filter || header.directory || header.values) {
    append_u64_le(out, header.filter.value_or(0));
  }
  if (header.directory || header.values) append_u64_le(out, header.directory.value_or(0));
  if (header.values) append_u64_le(out, *header.values);
  return out;
}

std::optional<ChunkHeader> decode_chunk_header(std::string_view bytes) {
  if (bytes.size() != 20 && bytes.size() != 28 && bytes.size() != 36 && bytes.size() != 44 &&
      bytes.size() != 52) {
    return std::nullopt;
  }
  ChunkHeader header{static_cast<std::uint32_t>(read_le(bytes, 0, 4)),
                     static_cast<sdk::Millis>(read_le(bytes, 4, 8)),
                     static_cast<sdk::Millis>(read_le(bytes, 12, 8)),
                     std::nullopt,
                     std::nullopt,
                     std::nullopt,
                     std::nullopt};
  if (bytes.size() >= 28) {
    const auto ingested_at = static_cast<sdk::Millis>(read_le(bytes, 20, 8));
    if (ingested_at != kNoIngestedAt) header.max_ingested_at = ingested_at;
  }
  if (bytes.size() >= 36) {
    const std::uint64_t filter = read_le(bytes, 28, 8);
    if (filter != 0) header.filter = filter;  // ids are never 0
  }
  if (bytes.size() >= 44) {
    const std::uint64_t directory = read_le(bytes, 36, 8);
    if (directory != 0) header.directory = directory;
  }
  if (bytes.size() == 52) {
    const std::uint64_t values = read_le(bytes, 44, 8);
    if (values != 0) header.values = values;
  }
  return header;
}

// ---- building -------------------------------------------------------------------------------

ChunkBuilder::Column& ChunkBuilder::column(std::string_view name) {
  auto it = columns_.find(name);
  if (it == columns_.end()) it = columns_.emplace(std::string(name), Column{}).first;
  Column& column = it->second;
  column.kinds.resize(rows_ - 1, CellKind::absent);  // rows before this one lacked the field
  return column;
}

void ChunkBuilder::cell(std::string_view name, const sdk::json::value& value) {
  if (const auto term = value_term(name, value)) values_.add_row(*term, rows_ - 1);
  Column& out = column(name);
  switch (value.kind()) {
    case boost::json::kind::null:
      out.kinds.push_back(CellKind::null);
      break;
    case boost::json::kind::bool_:
      out.kinds.push_back(value.get_bool() ? CellKind::boolean_true : CellKind::boolean_false);
      break;
    case boost::json::kind::int64:
      out.kinds.push_back(CellKind::int64);
      out.numbers.push_back(static_cast<std::uint64_t>(value.get_int64()));
      break;
    case boost::json::kind::uint64:
      out.kinds.push_back(CellKind::uint64);
      out.numbers.push_back(value.get_uint64());
      break;
    case boost::json::kind::double_:
      out.kinds.push_back(CellKind::double_number);
      out.numbers.push_back(std::bit_cast<std::uint64_t>(value.get_double()));
      break;
    case boost::json::kind::string:
      out.kinds.push_back(CellKind::string);
      out.strings.emplace_back(
          text_.emplace_back(value.get_string().data(), value.get_string().size()));
      break;
    case boost::json::kind::array:
    case boost::json::kind::object:
      out.kinds.push_back(CellKind::container);
      break;
  }
}

void ChunkBuilder::string_cell(std::string_view name, std::string_view value) {
  // Ids are unique per version and looked up through the id index.
  if (name != "id") values_.add_row(string_value_term(name, value), rows_ - 1);
  Column& out = column(name);
  out.kinds.push_back(CellKind::string);
  out.strings.emplace_back(text_.emplace_back(value));
}

void ChunkBuilder::integer_cell(std::string_view name, std::int64_t value) {
  Column& out = column(name);
  out.kinds.push_back(CellKind::int64);
  out.numbers.push_back(static_cast<std::uint64_t>(value));
}

void ChunkBuilder::append(const std::map<std::string, ColumnView>& columns,
                          const ChunkHeader& header, const std::vector<bool>* dropped) {
  const std::uint32_t base = rows_;
  std::uint32_t kept = header.rows;
  ChunkHeader range = header;  // of the rows appended
  if (dropped != nullptr) {
    kept = static_cast<std::uint32_t>(std::count(dropped->begin(), dropped->end(), false));
    range.min_timestamp = std::numeric_limits<sdk::Millis>::max();
    range.max_timestamp = std::numeric_limits<sdk::Millis>::min();
    if (range.max_ingested_at) range.max_ingested_at = std::numeric_limits<sdk::Millis>::min();
  }
  for (const auto& [name, view] : columns) {
    Column& out = columns_[name];
    out.kinds.resize(base, CellKind::absent);
    ColumnView::Cursor cursor(view);
    const bool timestamp = name == "timestamp";
    const bool ingested_at = name == "ingested_at";
    for (std::uint32_t row = 0; row < header.rows; ++row) {
      const CellKind kind = cursor.next();
      if (dropped != nullptr) {
        if ((*dropped)[row]) continue;
        const auto instant = static_cast<sdk::Millis>(cursor.number());
        if (timestamp) {
          range.min_timestamp = std::min(range.min_timestamp, instant);
          range.max_timestamp = std::max(range.max_timestamp, instant);
        } else if (ingested_at && range.max_ingested_at) {
          range.max_ingested_at = std::max(*range.max_ingested_at, instant);
        }
      }
      out.kinds.push_back(kind);
      if (holds_number(kind)) {
        out.numbers.push_back(cursor.number());
      } else if (kind == CellKind::string) {
        out.strings.emplace_back(text_.emplace_back(view.dictionary_entry(cursor.string_index())));
      }
    }
  }
  if (kept == 0) return;
  if (rows_ == 0) {
    header_.min_timestamp = range.min_timestamp;
    header_.max_timestamp = range.max_timestamp;
    header_.max_ingested_at = range.max_ingested_at;
  } else {
    header_.min_timestamp = std::min(header_.min_timestamp, range.min_timestamp);
    header_.max_timestamp = std::max(header_.max_timestamp, range.max_timestamp);
    // Known only when every merged chunk kept it.
    header_.max_ingested_at = header_.max_ingested_at && range.max_ingested_at
                                  ? std::max(*header_.max_ingested_at, *range.max_ingested_at)
                                  : std::optional<sdk::Millis>();
  }
  rows_ += kept;
  header_.rows = rows_;
}

std::uint32_t ChunkBuilder::add(const sdk::Record& record, const TokenCounts& tokens) {
  ++rows_;
  if (rows_ == 1) {
    header_.min_timestamp = header_.max_timestamp = record.timestamp;
    header_.max_ingested_at = record.ingested_at;
  } else {
    header_.min_timestamp = std::min(header_.min_timestamp, record.timestamp);
    header_.max_timestamp = std::max(header_.max_timestamp, record.timestamp);
    header_.max_ingested_at =
        std::max(header_.max_ingested_at.value_or(record.ingested_at), record.ingested_at);
  }
  header_.rows = rows_;
  string_cell("id", record.id);
  string_cell("type", record.type);
  string_cell("stream", record.stream);
  if (record.namespace_name) string_cell("namespace", *record.namespace_name);
  if (record.site_id) string_cell("site_id", *record.site_id);
  if (record.source_id) string_cell("source_id", *record.source_id);
  string_cell("receipt_id", record.receipt_id);
  integer_cell("timestamp", record.timestamp);
  integer_cell("ingested_at", record.ingested_at);
  integer_cell(kTokenCountColumn, tokens.length);
  integer_cell(
      kRecordBytesColumn,
      static_cast<std::int64_t>(toolkit::record_json_size(record) -
                                sdk::json_size(sdk::verification_name(record.verification))));
  postings_.add(rows_ - 1, tokens);
  // The roots themselves are never columns (column_name), only what is below them. A key no path
  // can address is skipped, so that a path never names two different places.
  const auto column = [&](const std::string& name, std::optional<std::string_view>,
                          const sdk::json::value& value) { cell(name, value); };
  std::string path = "payload";
  toolkit::for_each_field(path, record.payload, column);
  if (record.metrics.is_object()) {
    path = "metrics";
    toolkit::for_each_field(path, record.metrics, column);
  }
  return rows_ - 1;
}

std::vector<EncodedColumn> ChunkBuilder::encode() const {
  std::vector<EncodedColumn> out;
  out.reserve(columns_.size());
  for (const auto* entry : in_key_order(columns_)) {
    if (rows_ > page_rows_) {
      out.push_back(encode_paged(entry->first, entry->second));
      continue;
    }
    const Column& column = entry->second;
    out.push_back({entry->first, std::string(), {}});
    append_rows(out.back().bytes, column.kinds, rows_, column.numbers, column.strings);
  }
  return out;
}

std::uint32_t ChunkBuilder::rows_per_page(const Column& column) const {
  // The sizes tried, largest first: page_rows_, then halves of it down to kMinColumnPageRows.
  std::vector<std::uint32_t> sizes{page_rows_};
  while (sizes.back() / 2 >= kMinColumnPageRows)
    sizes.push_back(sizes.back() / 2);
  // What a page of each size would hold, measured on the rows from the column's first cell on: 8
  // bytes a number, a 4-byte index a string, and each distinct string once in its dictionary
  // (text and a 4-byte offset), so that a column of a few long values repeated keeps its rows.
  const auto first = static_cast<std::size_t>(
      std::find_if(column.kinds.begin(), column.kinds.end(),
                   [](CellKind kind) { return kind != CellKind::absent; }) -
      column.kinds.begin());
  std::size_t string = 0;  // the rows before the first are absent
  std::unordered_set<std::string_view> distinct;
  std::uint64_t bytes = 0;
  std::vector<std::uint64_t> bytes_at(sizes.size(), 0);  // as sizes
  std::size_t size = sizes.size();  // sizes[size - 1] is the next size to reach
  for (std::size_t row = first;; ++row) {
    while (size > 0 && (row - first == sizes[size - 1] || row >= column.kinds.size()))
      bytes_at[--size] = bytes;
    if (size == 0) break;
    const CellKind kind = column.kinds[row];
    if (holds_number(kind)) {
      bytes += 8;
    } else if (kind == CellKind::string) {
      const std::string_view text = column.strings[string++];
      bytes += 4;
      if (distinct.insert(text).second) bytes += text.size() + 4;
    }
  }
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    if (bytes_at[i] <= page_value_bytes_) return sizes[i];
  }
  return sizes.back();
}

EncodedColumn ChunkBuilder::encode_paged(std::string name, const Column& column) const {
  EncodedColumn out{std::move(name), std::string(), {}};
  const std::uint32_t page_rows = rows_per_page(column);
  const std::uint32_t pages = (rows_ + page_rows - 1) / page_rows;
  std::string directory;  // per page: dictionary size, stored
  bool containers = false;
  std::size_t numbers = 0;
  std::size_t strings = 0;
  std::uint64_t id = 0x636f6c756d6e7321ULL;  // a hash of every stored page, one after the other
  for (std::uint32_t page = 0; page < pages; ++page) {
    const std::size_t first = static_cast<std::size_t>(page) * page_rows;
    const std::uint32_t rows = std::min(page_rows, rows_ - static_cast<std::uint32_t>(first));
    // Rows past the column's kinds lacked the field.
    const std::span<const CellKind> kinds(
        column.kinds.data() + std::min(first, column.kinds.size()),
        std::min<std::size_t>(rows, column.kinds.size() - std::min(first, column.kinds.size())));
    const KindCounts counts =
        count_kinds(reinterpret_cast<const char*>(kinds.data()), kinds.size());
    containers = containers || counts.containers != 0;
    if (std::all_of(kinds.begin(), kinds.end(),
                    [](CellKind kind) { return kind == CellKind::absent; })) {
      append_u32_le(directory, 0);
      directory.push_back('\0');
      continue;
    }
    std::string bytes(8, '\0');  // the id, once every page is hashed
    const std::uint32_t entries =
        append_rows(bytes, kinds, rows, std::span(column.numbers).subspan(numbers, counts.numbers),
                    std::span(column.strings).subspan(strings, counts.strings));
    numbers += counts.numbers;
    strings += counts.strings;
    id = content_id(std::string_view(bytes).substr(8), id);
    append_u32_le(directory, entries);
    directory.push_back('\1');
    out.pages.emplace_back(page, std::move(bytes));
  }
  for (auto& [page, bytes] : out.pages) {
    for (int i = 0; i < 8; ++i)
      bytes[static_cast<std::size_t>(i)] = static_cast<char>((id >> (8 * i)) & 0xFFU);
  }
  out.bytes.push_back(static_cast<char>(kPagedColumn));
  append_u64_le(out.bytes, id);
  append_u32_le(out.bytes, page_rows);
  std::uint8_t flags = containers ? kPagedContainers : 0;
  if (numbers == rows_) flags |= kPagedNumbers;
  if (strings == rows_) flags |= kPagedStrings;
  out.bytes.push_back(static_cast<char>(flags));
  out.bytes += directory;
  return out;
}

}  // namespace eventsvc::plugins::rocksdb_storage
