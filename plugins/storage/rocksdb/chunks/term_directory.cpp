#include "chunks/term_directory.hpp"

#include <algorithm>

#include "chunks/chunk_keys.hpp"
#include "chunks/string_table.hpp"
#include "store/key_codec.hpp"
#include "store/little_endian.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

constexpr char kFormat = 1;
constexpr char kPartedFormat = 2;

// The table of `index`'s first terms; nullopt when the directory is not one this format reads.
std::optional<StringTable> table_of(std::string_view directory, TermIndex index) {
  if (directory.empty() || directory[0] != kFormat) return std::nullopt;
  directory.remove_prefix(1);
  auto words = StringTable::take(directory);
  if (!words || index == TermIndex::words) return words;
  return StringTable::take(directory);
}

// The last entry of `table` that is not after `term`, by its position; nullopt when every entry
// is after it, and kDamaged when an entry cannot be read.
constexpr std::uint32_t kDamaged = UINT32_MAX;
std::optional<std::uint32_t> last_not_after(const StringTable& table, std::string_view term) {
  // Entries [low, high) are left to search for the first one after `term`.
  std::uint32_t low = 0;
  std::uint32_t high = table.size();
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    const auto candidate = table.entry(middle);
    if (!candidate) return kDamaged;
    if (*candidate <= term) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  if (low == 0) return std::nullopt;
  return low - 1;
}

// Whether the entries of `table` are readable and in strictly increasing order.
bool ordered(const StringTable& table) {
  std::string_view previous;
  for (std::uint32_t i = 0; i < table.size(); ++i) {
    const auto entry = table.entry(i);
    if (!entry || (i > 0 && *entry <= previous)) return false;
    previous = *entry;
  }
  return true;
}

// A parted head's two tables and, past them, its part ids; nullopt when it is not one.
struct Head {
  StringTable words;
  StringTable values;
  std::string_view ids;
};
std::optional<Head> head_of(std::string_view head) {
  if (head.empty() || head[0] != kPartedFormat) return std::nullopt;
  head.remove_prefix(1);
  auto words = StringTable::take(head);
  if (!words) return std::nullopt;
  auto values = StringTable::take(head);
  if (!values || head.size() != (std::size_t{words->size()} + values->size()) * 8)
    return std::nullopt;
  return Head{*words, *values, head};
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
  if (const auto head = head_of(directory)) return ordered(head->words) && ordered(head->values);
  if (directory.empty() || directory[0] != kFormat) return false;
  directory.remove_prefix(1);
  for (int index = 0; index < 2; ++index) {
    const auto table = StringTable::take(directory);
    if (!table || !ordered(*table)) return false;  // blocks are in term order
  }
  return directory.empty();
}

BlockSearch find_term_block(std::string_view directory, TermIndex index, std::string_view term,
                            std::string_view& first) {
  const auto table = table_of(directory, index);
  if (!table) return BlockSearch::damaged;
  const auto block = last_not_after(*table, term);
  if (!block) return BlockSearch::absent;
  if (*block == kDamaged) return BlockSearch::damaged;
  first = *table->entry(*block);
  return BlockSearch::found;
}

StoredTermDirectory store_term_directory(const std::vector<std::string_view>& words,
                                         const std::vector<std::string_view>& values) {
  StoredTermDirectory stored;
  if (words.size() + values.size() <= kTermDirectoryPartBlocks) {
    stored.head = encode_term_directory(words, values);
    return stored;
  }
  std::vector<std::string_view> part_firsts[2];
  for (const auto index : {TermIndex::words, TermIndex::values}) {
    const auto& firsts = index == TermIndex::words ? words : values;
    for (std::size_t at = 0; at < firsts.size(); at += kTermDirectoryPartBlocks) {
      const auto end = firsts.begin() + static_cast<std::ptrdiff_t>(
                                            std::min(firsts.size(), at + kTermDirectoryPartBlocks));
      const std::vector<std::string_view> blocks(firsts.begin() + static_cast<std::ptrdiff_t>(at),
                                                 end);
      StoredTermDirectory::Part part;
      part.index = index;
      part.number = static_cast<std::uint32_t>(at / kTermDirectoryPartBlocks);
      part.bytes = index == TermIndex::words ? encode_term_directory(blocks, {})
                                             : encode_term_directory({}, blocks);
      part.id = term_directory_id(part.bytes);
      stored.parts.push_back(std::move(part));
      part_firsts[static_cast<int>(index)].push_back(firsts[at]);
    }
  }
  stored.head.push_back(kPartedFormat);
  append_string_table(stored.head, part_firsts[0]);
  append_string_table(stored.head, part_firsts[1]);
  for (const auto& part : stored.parts)
    append_u64_le(stored.head, part.id);
  return stored;
}

std::string term_directory_part_key(std::string_view tenant, std::uint64_t chunk, TermIndex index,
                                    std::uint32_t part) {
  std::string key = term_directory_key(tenant, chunk);
  key.push_back(static_cast<char>(index));
  append_u32(key, part);
  return key;
}

std::optional<BlockSearch> find_term_directory_part(std::string_view head, TermIndex index,
                                                    std::string_view term,
                                                    TermDirectoryPart& part) {
  if (head.empty() || head[0] != kPartedFormat) return std::nullopt;
  const auto parsed = head_of(head);
  if (!parsed) return BlockSearch::damaged;
  const bool words = index == TermIndex::words;
  const auto found = last_not_after(words ? parsed->words : parsed->values, term);
  if (!found) return BlockSearch::absent;
  if (*found == kDamaged) return BlockSearch::damaged;
  part.number = *found;
  const std::size_t place = words ? *found : parsed->words.size() + *found;
  part.id = read_le(parsed->ids, place * 8, 8);
  return BlockSearch::found;
}

}  // namespace eventsvc::plugins::rocksdb_storage
