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
#include "eventsvc/sdk/field_walk.hpp"
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

// Segments below payload or metrics in a field path ("payload.a.b": 2; canonical fields: 0).
std::size_t path_depth(std::string_view path);

}  // namespace eventsvc::sdk
