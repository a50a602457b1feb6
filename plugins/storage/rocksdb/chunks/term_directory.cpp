#include "chunks/term_directory.hpp"

#include "chunks/chunk_keys.hpp"
#include "chunks/string_table.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

constexpr char kFormat = 1;

// The table of `index`'s first terms; nullopt when the directory is not one this format reads.
std::optional<StringTable> table_of(std::string_view directory, TermIndex index) {
  if (directory.empty() || directory[0] != kFormat) return std::nullopt;
  directory.remove_prefix(1);
  auto words = StringTable::take(directory);
  if (!words || index == TermIndex::words) return words;
  return StringTable::take(directory);
}

}  // namespace

std::string term_directory_key(std::string_view tenant, std::uint64_t chunk) {
  return chunk_data_prefix(tenant, chunk, kDirectoryTag);
}

std::string encode_term_directory(const std::vector<std::string_view>& words,
                                  const std::vector<std::string_view>& values) {
  std::string out(1, kFormat);
  append_string_table(out, words);
  append_string_table(out, values);
  return out;
}

std::uint64_t term_directory_id(std::string_view directory) {
  return content_id(directory, 0x6469726563746f72ULL);
}

bool term_directory_intact(std::string_view directory) {
  if (directory.empty() || directory[0] != kFormat) return false;
  directory.remove_prefix(1);
  for (int index = 0; index < 2; ++index) {
    const auto table = StringTable::take(directory);
    if (!table) return false;
    std::string_view previous;
    for (std::uint32_t i = 0; i < table->size(); ++i) {
      const auto first = table->entry(i);
      if (!first || (i > 0 && *first <= previous)) return false;  // blocks are in term order
      previous = *first;
    }
  }
  return directory.empty();
}

BlockSearch find_term_block(std::string_view directory, TermIndex index, std::string_view term,
                            std::string_view& first) {
  const auto table = table_of(directory, index);
  if (!table) return BlockSearch::damaged;
  // The last block whose first term is not after `term`: blocks [low, high) are left to search
  // for the first block after it.
  std::uint32_t low = 0;
  std::uint32_t high = table->size();
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    const auto candidate = table->entry(middle);
    if (!candidate) return BlockSearch::damaged;
    if (*candidate <= term) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  if (low == 0) return BlockSearch::absent;
  first = *table->entry(low - 1);
  return BlockSearch::found;
}

}  // namespace eventsvc::plugins::rocksdb_storage
