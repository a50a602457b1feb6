// Matched records field by field ("cells"): how a Context Pack mode reads every match of a request
// without decoding tens of thousands of records, and what a storage engine with columns hands over
// straight from them (Storage::scan_cells, ContextMode::reads_cells).
//
// A block is a run of records. Its fields are, first, the fields the request named, in the order
// named, each value whole as resolve() gives it (objects and arrays included, instants as RFC 3339
// strings); then, when every leaf is asked for, every other field below payload and metrics whose
// keys a field path can name (no dot, not empty), arrays by index: scalars by value, objects and
// arrays marked as containers. CellBlockBuilder is the definition: an engine reading columns must
// hand over the same cells for the same records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/record.hpp"

namespace eventsvc::sdk {

// One field of a block: per row, which of `values` it holds.
struct FieldCells {
  static constexpr std::uint32_t kAbsent = 0xffffffff;     // the record has no such field
  static constexpr std::uint32_t kContainer = 0xfffffffe;  // an object or array (leaves only)

  std::string path;                 // as a request names it: "payload.reading.temp", "stream"
  std::vector<json::value> values;  // rows may share one
  std::vector<std::uint32_t> rows;  // per row: index into values, kAbsent or kContainer
};

// A run of matched records, field by field; valid only while it is being visited.
struct CellBlock {
  std::vector<std::string_view> ids;
  std::vector<Millis> timestamps;
  std::vector<Verification> verifications;
  std::vector<std::size_t> json_sizes;  // record_json_size() of each record
  std::vector<FieldCells> fields;       // the named fields, then the leaves

  std::size_t rows() const { return ids.size(); }
  // Empties the block for the next run, keeping its first `named_fields` fields (emptied) and
  // every buffer's capacity.
  void clear(std::size_t named_fields);
};

// A record by its version: id and timestamp.
struct RecordKey {
  std::string id;
  Millis timestamp = 0;
};

// Which fields a cells reader delivers.
struct CellFields {
  std::vector<FieldPath> named;  // resolved whole; any field, canonical ones included
  bool every_leaf = false;       // also every other field below payload and metrics

  // Whether `path` is one of the named fields (a leaf then is not repeated).
  bool names(std::string_view path) const;
};

// Called per block; return false to stop.
using CellVisitor = std::function<bool(const CellBlock& block)>;

// Builds blocks from decoded records.
class CellBlockBuilder {
 public:
  explicit CellBlockBuilder(CellFields fields);

  // Appends the record as the block's next row; it must outlive the block's visit (ids are views).
  void add(const Record& record);
  const CellBlock& block() const { return block_; }
  // Empties the block for the next run (its buffers are kept).
  void clear();

 private:
  FieldCells& leaf(const std::string& path);

  CellFields fields_;
  CellBlock block_;
  std::unordered_map<std::string, std::size_t> leaves_;  // path -> index into block_.fields
};

// Visits `records` in blocks of `block_rows`; false when the visitor stopped.
bool visit_cells(const std::vector<const Record*>& records, const CellFields& fields,
                 const CellVisitor& visit, std::size_t block_rows = 1024);

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

// Segments below payload or metrics in a field path ("payload.a.b": 2; canonical fields: 0).
std::size_t path_depth(std::string_view path);

}  // namespace eventsvc::sdk
