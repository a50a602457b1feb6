// Matching rows of column chunks into cell blocks (sdk/cells.hpp), for ColumnReader::cells().
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/storage.hpp"
#include "query/candidate_stream.hpp"
#include "query/chunk_scanner.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// Where a cells read finds its columns, and what every thread's sink shares.
struct CellPlan {
  ColumnPlan columns;
  std::vector<std::size_t> named;  // per named field, its column
  std::size_t receipt = 0;
  std::size_t bytes = 0;
  const sdk::CellQuery* query = nullptr;
  std::optional<VersionRef> cutoff;  // only versions up to it in the query's order
  const std::function<sdk::Verification(std::string_view receipt_id)>* verification = nullptr;
  const sdk::CellVisitor* visit = nullptr;
  std::mutex* visiting = nullptr;  // blocks are visited one at a time
  bool stopped = false;            // the visitor asked to stop (under `visiting`)
};

// A sink of its own for each thread: blocks are handed to the plan's visitor one at a time.
std::unique_ptr<RowSink> cell_sink(Database& database, const rocksdb::Snapshot* snapshot,
                                   const std::string& tenant, CellPlan& plan);

}  // namespace eventsvc::plugins::rocksdb_storage
