#include "eventsvc/toolkit/cells.hpp"

#include <algorithm>

#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/field_value.hpp"
#include "eventsvc/toolkit/field_walk.hpp"
#include "eventsvc/toolkit/record_json.hpp"

namespace eventsvc::toolkit {

std::size_t path_depth(std::string_view path) {
  if (!path.starts_with("payload.") && !path.starts_with("metrics.")) return 0;
  return static_cast<std::size_t>(std::count(path.begin(), path.end(), '.'));
}

CellBlockBuilder::CellBlockBuilder(CellFields fields) : fields_(std::move(fields)) {
  for (const auto& field : fields_.named)
    block_.fields.push_back({field.text, {}, {}});
}

void CellBlockBuilder::clear() {
  block_.clear(fields_.named.size());
  leaves_.clear();
}

FieldCells& CellBlockBuilder::leaf(const std::string& path) {
  auto it = leaves_.find(path);
  if (it == leaves_.end()) {
    it = leaves_.emplace(path, block_.fields.size()).first;
    // Absent from the rows before this one (whose id is already in the block).
    block_.fields.push_back(
        {path, {}, std::vector<std::uint32_t>(block_.rows() - 1, FieldCells::kAbsent)});
  }
  return block_.fields[it->second];
}

void CellBlockBuilder::add(const Record& record) {
  const std::size_t row = block_.rows();
  block_.ids.emplace_back(record.id);
  block_.timestamps.push_back(record.timestamp);
  block_.verifications.push_back(record.verification);
  block_.json_sizes.push_back(record_json_size(record));
  for (std::size_t i = 0; i < fields_.named.size(); ++i) {
    const FieldValue value = resolve(record, fields_.named[i]);
    FieldCells& cells = block_.fields[i];
    if (!value.present()) {
      cells.rows.push_back(FieldCells::kAbsent);
      continue;
    }
    cells.rows.push_back(static_cast<std::uint32_t>(cells.values.size()));
    cells.values.push_back(value.to_json());
  }
  if (fields_.every_leaf) {
    auto cell = [&](const std::string& path, std::optional<std::string_view>,
                    const json::value& value) {
      if (fields_.names(path)) return;
      FieldCells& cells = leaf(path);
      if (value.is_structured()) {
        cells.rows.push_back(FieldCells::kContainer);
      } else {
        cells.rows.push_back(static_cast<std::uint32_t>(cells.values.size()));
        cells.values.push_back(value);
      }
    };
    std::string path = "payload";
    for_each_field(path, record.payload, cell);
    if (record.metrics.is_object()) {
      path = "metrics";
      for_each_field(path, record.metrics, cell);
    }
    for (auto& field : block_.fields) {
      if (field.rows.size() == row) field.rows.push_back(FieldCells::kAbsent);
    }
  }
}

bool visit_cells(const std::vector<const Record*>& records, const CellFields& fields,
                 const CellVisitor& visit, std::size_t block_rows) {
  CellBlockBuilder builder(fields);
  for (const auto* record : records) {
    builder.add(*record);
    if (builder.block().rows() == block_rows) {
      if (!visit(builder.block())) return false;
      builder.clear();
    }
  }
  return builder.block().rows() == 0 || visit(builder.block());
}

sdk::ScanStats scan_cells_by_records(sdk::Storage& storage, const sdk::Tenant& tenant,
                                     const sdk::CellQuery& query, const CellVisitor& visit) {
  constexpr std::size_t kBlockRows = 1024;
  sdk::RecordQuery records = query.records;
  records.limit = 0;
  CellBlockBuilder builder(query.fields);
  std::vector<Record> block;  // the block's ids are views into these
  block.reserve(kBlockRows);
  bool stopped = false;
  auto flush = [&] {
    for (const auto& record : block)
      builder.add(record);
    stopped = !visit(builder.block());
    builder.clear();
    block.clear();
    return !stopped;
  };
  sdk::ScanStats stats = storage.scan(tenant, records, [&](Record& record, double) {
    block.push_back(std::move(record));
    return block.size() < kBlockRows || flush();
  });
  if (!stopped && !block.empty()) flush();
  return stats;
}

}  // namespace eventsvc::toolkit
