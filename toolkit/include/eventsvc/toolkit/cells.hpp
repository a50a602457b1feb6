// Cells (sdk/cells.hpp) built from decoded records: what a Context Pack mode or a storage engine
// without columns hands over, and the definition of the cells a column engine must match.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "eventsvc/sdk/cells.hpp"
#include "eventsvc/sdk/record.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

using sdk::CellBlock;
using sdk::CellFields;
using sdk::CellVisitor;
using sdk::FieldCells;
using sdk::Record;

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

// What Storage::scan_cells must deliver, read through storage.scan() record by record into
// CellBlockBuilder: for an engine without columns to read them from.
sdk::ScanStats scan_cells_by_records(sdk::Storage& storage, const sdk::Tenant& tenant,
                                     const sdk::CellQuery& query, const CellVisitor& visit);

}  // namespace eventsvc::toolkit
