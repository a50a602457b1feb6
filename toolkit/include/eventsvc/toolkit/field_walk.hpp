// The one walk of a record's fields, for everything that reads a record field by field: its cells
// (cells.hpp), the columns of a column store, a version index, its searchable text (text.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

// A key a field path can name as one segment: not empty, no dot. Other keys are no field's.
bool addressable_key(std::string_view key);

// Which object members a walk of a record's fields enters: those a field path can name (the
// fields of cells and columns), or every one (a record's text, whose keys and strings are
// searchable whatever its keys look like).
enum class FieldKeys : std::uint8_t { addressable, all };

// The one walk of a record's fields: calls visit(path, key, child) for every field below `value`
// (which `path` names, and which is not visited itself), depth first, each container before what
// it holds: object members by key (`key` is the member's key), array elements by index (`key` is
// nullopt). `path` is the child's dotted path (`path` + "." + key or index). The fields of a record
// are those below its payload and (an object) metrics: what CellBlockBuilder hands over, what a
// column chunk keeps a column of, and (with FieldKeys::all, and attributes too) its text.
template <class Visit>
void for_each_field(std::string& path, const json::value& value, Visit&& visit,
                    FieldKeys keys = FieldKeys::addressable);

// The same walk below an object (a record's attributes).
template <class Visit>
void for_each_member(std::string& path, const json::object& object, Visit&& visit,
                     FieldKeys keys = FieldKeys::addressable) {
  const std::size_t length = path.size();
  for (const auto& member : object) {
    const std::string_view key(member.key().data(), member.key().size());
    if (keys == FieldKeys::addressable && !addressable_key(key)) continue;
    path.push_back('.');
    path += key;
    visit(static_cast<const std::string&>(path), std::optional<std::string_view>(key),
          member.value());
    for_each_field(path, member.value(), visit, keys);
    path.resize(length);
  }
}

template <class Visit>
void for_each_field(std::string& path, const json::value& value, Visit&& visit, FieldKeys keys) {
  if (value.is_object()) {
    for_each_member(path, value.get_object(), visit, keys);
  } else if (value.is_array()) {
    const std::size_t length = path.size();
    const auto& array = value.get_array();
    for (std::size_t i = 0; i < array.size(); ++i) {
      path.push_back('.');
      path += std::to_string(i);
      visit(static_cast<const std::string&>(path), std::optional<std::string_view>(), array[i]);
      for_each_field(path, array[i], visit, keys);
      path.resize(length);
    }
  }
}

}  // namespace eventsvc::toolkit
