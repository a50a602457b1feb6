// Matched records field by field ("cells"): how a Context Pack mode reads every match of a request
// without decoding tens of thousands of records, and what a storage engine with columns hands over
// straight from them (Storage::scan_cells, ContextMode::reads_every_match).
//
// A block is a run of records. Its fields are, first, the fields the request named, in the order
// named, each value whole as resolve() gives it (objects and arrays included, instants as RFC 3339
// strings); then, when every leaf is asked for, every other field below payload and metrics whose
// keys a field path can name (no dot, not empty), arrays by index: scalars by value, objects and
// arrays marked as containers. The toolkit's CellBlockBuilder (toolkit/cells.hpp) is the
// definition: an engine reading columns must hand over the same cells for the same records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
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

}  // namespace eventsvc::sdk
