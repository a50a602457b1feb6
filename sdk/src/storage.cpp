#include "eventsvc/sdk/storage.hpp"

#include <limits>

namespace eventsvc::sdk {

std::string_view receipt_state_name(ReceiptState state) {
  switch (state) {
    case ReceiptState::accepted:
      return "accepted";
    case ReceiptState::projecting:
      return "projecting";
    case ReceiptState::verified:
      return "verified";
    case ReceiptState::conflict:
      return "conflict";
    case ReceiptState::verification_unavailable:
      return "verification-unavailable";
  }
  return "accepted";
}

AggregateResult Storage::aggregate(const Tenant& tenant, const AggregateRequest& request) {
  RecordQuery query;
  query.source = request.source;
  query.where = request.where;
  query.text = request.text;
  query.limit = 0;
  query.scan_limit = std::numeric_limits<std::size_t>::max();
  AggregateAccumulator accumulator(request);
  const ScanStats scanned = scan(tenant, query, [&](const Record& record, double) {
    accumulator.add(record);
    return true;
  });
  return accumulator.finish({scanned.scanned, scanned.matched, scanned.indexed});
}

ScanStats Storage::scan_cells(const Tenant& tenant, const CellQuery& query,
                              const CellVisitor& visit) {
  constexpr std::size_t kBlockRows = 1024;
  RecordQuery records = query.records;
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
  ScanStats stats = scan(tenant, records, [&](Record& record, double) {
    block.push_back(std::move(record));
    return block.size() < kBlockRows || flush();
  });
  if (!stopped && !block.empty()) flush();
  return stats;
}

std::string_view source_name(Source source) {
  return source == Source::current ? "current" : "history";
}

// Out-of-line destructors: they anchor each class's vtable and type_info in the SDK library, so
// host and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and
// exception matching work across the boundary.
Storage::~Storage() = default;

}  // namespace eventsvc::sdk
