// A list of strings laid out for reading one of them without reading the others: their number
// (u32 LE), the end offset of each in the text that follows (u32 LE each), then the text. A
// column's dictionary (column_chunk.hpp) and a chunk's directory of term blocks
// (term_directory.hpp) are such tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace eventsvc::plugins::rocksdb_storage {

void append_string_table(std::string& out, const std::vector<std::string_view>& strings);

// A table read in place: the bytes stay where they were.
class StringTable {
 public:
  // The table at the start of `bytes`, which then begin past it; nullopt when they are too short.
  // Offsets are checked where an entry is read (a read touches a few, a check here would touch
  // all).
  static std::optional<StringTable> take(std::string_view& bytes);

  std::uint32_t size() const { return size_; }
  // Entry `index` (below size()); nullopt when its offsets are damaged.
  std::optional<std::string_view> entry(std::uint32_t index) const;

 private:
  std::uint32_t size_ = 0;
  std::string_view ends_;
  std::string_view text_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
