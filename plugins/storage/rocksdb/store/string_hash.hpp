// Hash maps keyed by std::string that are looked up by std::string_view without building a
// string: the chunk builders look up one term or column per cell, and a tree of strings compared
// byte by byte was the largest cost of building a chunk of high-cardinality values. Their keys
// are put in order once, when the chunk is encoded.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace eventsvc::plugins::rocksdb_storage {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept {
    return std::hash<std::string_view>{}(text);
  }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

// The entries of `map` in key order.
template <typename Value>
std::vector<const typename StringMap<Value>::value_type*> in_key_order(
    const StringMap<Value>& map) {
  std::vector<const typename StringMap<Value>::value_type*> entries;
  entries.reserve(map.size());
  for (const auto& entry : map)
    entries.push_back(&entry);
  std::sort(entries.begin(), entries.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  return entries;
}

}  // namespace eventsvc::plugins::rocksdb_storage
