#include "store/ordered_batch.hpp"

#include <algorithm>

namespace eventsvc::plugins::rocksdb_storage {

void OrderedBatch::put(rocksdb::ColumnFamilyHandle* family, std::string key, std::string value) {
  operations_.push_back({family, Kind::put, static_cast<std::uint32_t>(operations_.size()),
                         std::move(key), std::move(value)});
}

void OrderedBatch::remove(rocksdb::ColumnFamilyHandle* family, std::string key) {
  operations_.push_back(
      {family, Kind::remove, static_cast<std::uint32_t>(operations_.size()), std::move(key), {}});
}

void OrderedBatch::merge(rocksdb::ColumnFamilyHandle* family, std::string key, std::string value) {
  operations_.push_back({family, Kind::merge, static_cast<std::uint32_t>(operations_.size()),
                         std::move(key), std::move(value)});
}

void OrderedBatch::move_into(rocksdb::WriteBatch& batch) {
  std::sort(operations_.begin(), operations_.end(), [](const Operation& a, const Operation& b) {
    if (a.family->GetID() != b.family->GetID()) return a.family->GetID() < b.family->GetID();
    if (const int order = a.key.compare(b.key); order != 0) return order < 0;
    return a.order < b.order;
  });
  for (const auto& operation : operations_) {
    switch (operation.kind) {
      case Kind::put:
        batch.Put(operation.family, operation.key, operation.value);
        break;
      case Kind::remove:
        batch.SingleDelete(operation.family, operation.key);
        break;
      case Kind::merge:
        batch.Merge(operation.family, operation.key, operation.value);
        break;
    }
  }
  operations_.clear();
}

}  // namespace eventsvc::plugins::rocksdb_storage
