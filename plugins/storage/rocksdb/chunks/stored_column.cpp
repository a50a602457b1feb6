#include "chunks/stored_column.hpp"

#include <memory>

#include "chunks/chunk_keys.hpp"
#include "eventsvc/sdk/error.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

// Reads the pages of one column. A question about a few rows reads one page, by a point read; one
// about rows on many pages reads them in order, and an iterator over the column's pages then finds
// each after the last with a step or two instead of a lookup from the top of every level.
class PageReader {
 public:
  PageReader(Database& database, const rocksdb::Snapshot* snapshot, std::string_view tenant,
             std::uint64_t chunk, std::string_view column)
      : database_(database),
        snapshot_(snapshot),
        prefix_(chunk_column_pages_prefix(tenant, chunk, column)),
        upper_(prefix_successor(prefix_)) {}

  std::unique_ptr<rocksdb::PinnableSlice> load(std::uint32_t page) {
    std::string key = prefix_;
    append_u32(key, page);
    if (!read_one_) {
      read_one_ = true;
      return database_.get_pinned(database_.columns, key, snapshot_);
    }
    if (!pages_) {
      lower_ = prefix_;
      lower_slice_ = lower_;
      upper_slice_ = upper_;
      pages_ =
          database_.pinning_iterator(database_.columns, &upper_slice_, &lower_slice_, snapshot_);
      pages_->Seek(key);
    } else {
      constexpr int kSteps = 4;  // past pages without a cell of the column, then a seek
      int steps = 0;
      while (pages_->Valid() && pages_->key().compare(key) < 0 && steps++ < kSteps)
        pages_->Next();
      if (!pages_->Valid() || pages_->key().compare(key) < 0) pages_->Seek(key);
    }
    if (!pages_->Valid() || pages_->key() != key) {
      check(pages_->status(), "column page read");
      return nullptr;
    }
    // The value stays in the iterator's pinned block for as long as the iterator lives; the slice
    // holds it alive.
    auto bytes = std::make_unique<rocksdb::PinnableSlice>();
    auto* holder = new std::shared_ptr<rocksdb::Iterator>(pages_);
    bytes->PinSlice(
        pages_->value(),
        [](void* held, void*) { delete static_cast<std::shared_ptr<rocksdb::Iterator>*>(held); },
        holder, nullptr);
    return bytes;
  }

 private:
  Database& database_;
  const rocksdb::Snapshot* snapshot_;
  std::string prefix_;
  std::string upper_;
  std::string lower_;
  rocksdb::Slice lower_slice_;
  rocksdb::Slice upper_slice_;
  bool read_one_ = false;
  std::shared_ptr<rocksdb::Iterator> pages_;
};

}  // namespace

ColumnView::PageLoader column_pages(Database& database, const rocksdb::Snapshot* snapshot,
                                    std::string_view tenant, std::uint64_t chunk,
                                    std::string_view column) {
  auto reader = std::make_shared<PageReader>(database, snapshot, tenant, chunk, column);
  return [reader](std::uint32_t page) { return reader->load(page); };
}

std::optional<ColumnView> read_column(Database& database, const rocksdb::Snapshot* snapshot,
                                      std::string_view tenant, std::uint64_t chunk,
                                      std::string_view column, std::uint32_t rows) {
  auto bytes =
      database.get_pinned(database.columns, chunk_column_key(tenant, chunk, column), snapshot);
  if (!bytes) return std::nullopt;
  auto view = ColumnView::decode(std::move(bytes), rows,
                                 column_pages(database, snapshot, tenant, chunk, column));
  if (!view) {
    throw sdk::Error::internal("the " + std::string(column) + " column of chunk " +
                               std::to_string(chunk) + " is damaged");
  }
  return view;
}

}  // namespace eventsvc::plugins::rocksdb_storage
