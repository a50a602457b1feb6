#include "chunks/stored_column.hpp"

#include <memory>

#include "chunks/chunk_keys.hpp"
#include "eventsvc/sdk/error.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

// Reads the pages of one column. A question about a few rows reads each of their pages by a
// point read; one that reaches the rows of many pages reads them in order, and an iterator over the
// column's run of pages then finds each one step after the last instead of by a lookup through
// every level of the database. It never steps over a page it was not asked for: a step reads it.
class PageReader {
 public:
  PageReader(Database& database, const rocksdb::Snapshot* snapshot, std::string_view tenant,
             std::uint64_t chunk, std::string_view column)
      : database_(database),
        snapshot_(snapshot),
        prefix_(chunk_column_pages_prefix(tenant, chunk, column)),
        lower_(prefix_),
        upper_(prefix_successor(prefix_)) {}

  std::unique_ptr<rocksdb::PinnableSlice> load(std::uint32_t page, bool following) {
    std::string key = prefix_;
    append_u32(key, page);
    if (!following) {
      placed_ = false;
      return database_.get_pinned(database_.columns, key, snapshot_);
    }
    if (!pages_) {
      lower_slice_ = lower_;
      upper_slice_ = upper_;
      pages_ =
          database_.pinning_iterator(database_.columns, &upper_slice_, &lower_slice_, snapshot_);
    }
    if (placed_ && pages_->Valid()) pages_->Next();
    // (A step lands elsewhere only past a key of a column whose name extends this one's.)
    if (!pages_->Valid() || pages_->key() != key) pages_->Seek(key);
    placed_ = pages_->Valid() && pages_->key() == key;
    if (!placed_) {
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
  std::string lower_;
  std::string upper_;
  rocksdb::Slice lower_slice_;
  rocksdb::Slice upper_slice_;
  std::shared_ptr<rocksdb::Iterator> pages_;
  bool placed_ = false;  // pages_ is at the page loaded last
};

}  // namespace

ColumnView::PageLoader column_pages(Database& database, const rocksdb::Snapshot* snapshot,
                                    std::string_view tenant, std::uint64_t chunk,
                                    std::string_view column) {
  auto reader = std::make_shared<PageReader>(database, snapshot, tenant, chunk, column);
  return [reader](std::uint32_t page, bool following) { return reader->load(page, following); };
}

PageCacheScope column_page_cache(Database& database, std::string_view tenant, std::uint64_t chunk,
                                 std::string_view column, PageRead read) {
  PageCacheScope scope{&database.pages(), chunk_column_pages_prefix(tenant, chunk, column), read};
  append_u32(scope.column, static_cast<std::uint32_t>(column.size()));  // where the name ends
  return scope;
}

std::optional<ColumnView> read_column(Database& database, const rocksdb::Snapshot* snapshot,
                                      std::string_view tenant, std::uint64_t chunk,
                                      std::string_view column, std::uint32_t rows, PageRead read) {
  auto bytes =
      database.get_pinned(database.columns, chunk_column_key(tenant, chunk, column), snapshot);
  if (!bytes) return std::nullopt;
  auto view = ColumnView::decode(std::move(bytes), rows,
                                 column_pages(database, snapshot, tenant, chunk, column),
                                 column_page_cache(database, tenant, chunk, column, read));
  if (!view) {
    throw sdk::Error::internal("the " + std::string(column) + " column of chunk " +
                               std::to_string(chunk) + " is damaged");
  }
  return view;
}

}  // namespace eventsvc::plugins::rocksdb_storage
