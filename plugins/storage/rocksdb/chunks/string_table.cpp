#include "chunks/string_table.hpp"

#include "store/little_endian.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

std::uint32_t read_u32_le(std::string_view bytes, std::size_t at) {
  return static_cast<std::uint32_t>(read_le(bytes, at, 4));
}

}  // namespace

void append_string_table(std::string& out, const std::vector<std::string_view>& strings) {
  append_u32_le(out, static_cast<std::uint32_t>(strings.size()));
  std::uint32_t end = 0;
  for (const auto text : strings) {
    end += static_cast<std::uint32_t>(text.size());
    append_u32_le(out, end);
  }
  for (const auto text : strings)
    out += text;
}

std::optional<StringTable> StringTable::take(std::string_view& bytes) {
  if (bytes.size() < 4) return std::nullopt;
  StringTable table;
  table.size_ = read_u32_le(bytes, 0);
  const std::size_t ends = std::size_t{table.size_} * 4;
  if (bytes.size() - 4 < ends) return std::nullopt;
  table.ends_ = bytes.substr(4, ends);
  const std::size_t text = table.size_ == 0 ? 0 : read_u32_le(table.ends_, ends - 4);
  if (bytes.size() - 4 - ends < text) return std::nullopt;
  table.text_ = bytes.substr(4 + ends, text);
  bytes.remove_prefix(4 + ends + text);
  return table;
}

std::optional<std::string_view> StringTable::entry(std::uint32_t index) const {
  if (index >= size_) return std::nullopt;
  const std::uint32_t begin = index == 0 ? 0 : read_u32_le(ends_, (std::size_t{index} - 1) * 4);
  const std::uint32_t end = read_u32_le(ends_, std::size_t{index} * 4);
  if (begin > end || end > text_.size()) return std::nullopt;
  return text_.substr(begin, end - begin);
}

}  // namespace eventsvc::plugins::rocksdb_storage
