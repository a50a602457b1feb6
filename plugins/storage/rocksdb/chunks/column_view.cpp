// Reading a column (column_chunk.hpp): its kinds counted, its cells stepped through by a cursor,
// a paged column's pages loaded as they are reached.
#include <algorithm>
#include <optional>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/error.hpp"
#include "store/little_endian.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

// Reads `size` bytes from the front of `bytes`.
std::optional<std::string_view> take(std::string_view& bytes, std::size_t size) {
  if (bytes.size() < size) return std::nullopt;
  const auto front = bytes.substr(0, size);
  bytes.remove_prefix(size);
  return front;
}

sdk::Error damaged_column() {
  return sdk::Error::internal("a column of a chunk is damaged");
}

}  // namespace

// 16 kinds at a time where the CPU has SSE2 (every x86-64): reading a column counts every row's
// kind, and stepping a cursor past rows counts theirs, both on query paths.
KindCounts count_kinds(const char* kinds, std::size_t size) {
  KindCounts counts;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i below_numbers = _mm_set1_epi8(static_cast<char>(CellKind::int64) - 1);
  const __m128i above_numbers = _mm_set1_epi8(static_cast<char>(CellKind::double_number) + 1);
  const __m128i string = _mm_set1_epi8(static_cast<char>(CellKind::string));
  const __m128i container = _mm_set1_epi8(static_cast<char>(CellKind::container));
  __m128i highest = zero;
  auto total = [&](__m128i bytes) {  // the sum of 16 byte counters
    const __m128i sums = _mm_sad_epu8(bytes, zero);
    return static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) +
           static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_srli_si128(sums, 8)));
  };
  while (size - i >= 16) {
    // Byte counters count down by one per match (a match compares as -1); 255 rounds at most.
    __m128i numbers = zero;
    __m128i strings = zero;
    __m128i containers = zero;
    for (int round = 0; round < 255 && size - i >= 16; ++round, i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kinds + i));
      highest = _mm_max_epu8(highest, v);
      // Kinds are small: signed comparisons are safe below 128; a damaged byte above shows in
      // `highest`.
      numbers = _mm_sub_epi8(numbers, _mm_and_si128(_mm_cmpgt_epi8(v, below_numbers),
                                                    _mm_cmplt_epi8(v, above_numbers)));
      strings = _mm_sub_epi8(strings, _mm_cmpeq_epi8(v, string));
      containers = _mm_sub_epi8(containers, _mm_cmpeq_epi8(v, container));
    }
    counts.numbers += total(numbers);
    counts.strings += total(strings);
    counts.containers += total(containers);
  }
  alignas(16) unsigned char lanes[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), highest);
  for (const unsigned char lane : lanes)
    counts.highest = std::max(counts.highest, lane);
#endif
  for (; i < size; ++i) {
    const auto kind = static_cast<unsigned char>(kinds[i]);
    counts.highest = std::max(counts.highest, kind);
    counts.numbers +=
        static_cast<std::size_t>(kind >= static_cast<unsigned char>(CellKind::int64) &&
                                 kind <= static_cast<unsigned char>(CellKind::double_number));
    counts.strings +=
        static_cast<std::size_t>(kind == static_cast<unsigned char>(CellKind::string));
    counts.containers +=
        static_cast<std::size_t>(kind == static_cast<unsigned char>(CellKind::container));
  }
  return counts;
}

namespace {

// The counts of a run of kind bytes that are all one kind (every timestamp an int64, every id a
// string): what count_kinds would give, found by comparing each block of 64 bytes with the first
// byte, a quarter of its work. Nullopt at the first block that holds another kind.
std::optional<KindCounts> counts_of_one_kind(const char* kinds, std::size_t size) {
  if (size == 0) return std::nullopt;
  const char first = kinds[0];
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i want = _mm_set1_epi8(first);
  for (; size - i >= 64; i += 64) {
    const auto at = [&](std::size_t offset) {
      return _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kinds + i + offset)),
                            want);
    };
    const __m128i same = _mm_and_si128(_mm_and_si128(at(0), at(16)), _mm_and_si128(at(32), at(48)));
    if (_mm_movemask_epi8(same) != 0xffff) return std::nullopt;
  }
#endif
  for (; i < size; ++i) {
    if (kinds[i] != first) return std::nullopt;
  }
  // One row's counts, for every row.
  KindCounts counts = count_kinds(kinds, 1);
  counts.numbers *= size;
  counts.strings *= size;
  counts.containers *= size;
  return counts;
}

}  // namespace

// The kinds of a column of mixed kinds counted a block at a time, each block's counts before it
// kept for Cursor::skip.
KindCounts ColumnView::count_blocks(ColumnView& view) {
  const std::size_t rows = view.kinds_.size();
  const std::size_t blocks = (rows + kKindBlock - 1) / kKindBlock;
  view.numbers_before_.resize(blocks);
  view.strings_before_.resize(blocks);
  KindCounts counts;
  for (std::size_t block = 0; block < blocks; ++block) {
    view.numbers_before_[block] = static_cast<std::uint32_t>(counts.numbers);
    view.strings_before_[block] = static_cast<std::uint32_t>(counts.strings);
    const std::size_t first = block * kKindBlock;
    const KindCounts part =
        count_kinds(view.kinds_.data() + first, std::min(kKindBlock, rows - first));
    counts.numbers += part.numbers;
    counts.strings += part.strings;
    counts.containers += part.containers;
    counts.highest = std::max(counts.highest, part.highest);
  }
  return counts;
}

std::optional<ColumnView> ColumnView::decode(std::string encoded, std::uint32_t rows,
                                             PageLoader pages, PageCacheScope cache) {
  ColumnView view;
  view.rows_ = rows;
  view.bytes_ = std::make_unique<std::string>(std::move(encoded));
  const std::string_view bytes(*view.bytes_);
  if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == kPagedColumn)
    return parse_head(std::move(view), bytes, std::move(pages), std::move(cache));
  return parse(std::move(view), bytes);
}

std::optional<ColumnView> ColumnView::decode(std::unique_ptr<rocksdb::PinnableSlice> pinned,
                                             std::uint32_t rows, PageLoader pages,
                                             PageCacheScope cache) {
  ColumnView view;
  view.rows_ = rows;
  view.pinned_ = std::move(pinned);
  const std::string_view bytes(view.pinned_->data(), view.pinned_->size());
  if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == kPagedColumn)
    return parse_head(std::move(view), bytes, std::move(pages), std::move(cache));
  return parse(std::move(view), bytes);
}

std::optional<ColumnView> ColumnView::parse_head(ColumnView view, std::string_view bytes,
                                                 PageLoader load, PageCacheScope cache) {
  // A reader that cannot load pages was given a paged column: a fault of the code, not the data.
  if (!load) throw sdk::Error::internal("a paged column was read without its pages");
  constexpr std::size_t kFixed = 1 + 8 + 4 + 1;
  constexpr std::size_t kPerPage = 4 + 1;
  if (bytes.size() < kFixed) return std::nullopt;
  auto pages = std::make_unique<Pages>();
  pages->load = std::move(load);
  if (cache.cache != nullptr && cache.cache->enabled()) pages->cache = std::move(cache);
  pages->id = read_le(bytes, 1, 8);
  pages->rows = static_cast<std::uint32_t>(read_le(bytes, 9, 4));
  const auto flags = static_cast<std::uint8_t>(bytes[13]);
  if (pages->rows == 0) return std::nullopt;
  const std::size_t count = (static_cast<std::size_t>(view.rows_) + pages->rows - 1) / pages->rows;
  if (bytes.size() != kFixed + count * kPerPage) return std::nullopt;
  std::uint64_t base = 0;
  for (std::size_t page = 0; page < count; ++page) {
    const std::size_t at = kFixed + page * kPerPage;
    pages->bases.push_back(static_cast<std::uint32_t>(base));
    base += read_le(bytes, at, 4);
    const char stored = bytes[at + 4];
    if (stored != 0 && stored != 1) return std::nullopt;
    pages->stored.push_back(stored == 1);
  }
  if (base > 0xffffffffULL) return std::nullopt;
  pages->bases.push_back(static_cast<std::uint32_t>(base));
  pages->loaded.resize(count);
  view.has_containers_ = (flags & kPagedContainers) != 0;
  view.uniform_numbers_ = (flags & kPagedNumbers) != 0;
  view.uniform_strings_ = (flags & kPagedStrings) != 0;
  view.pages_ = std::move(pages);
  return view;
}

const ColumnView& ColumnView::page(std::uint32_t index) const {
  std::shared_ptr<const ColumnView>& slot = pages_->loaded[index];
  if (slot) return *slot;
  const std::uint32_t first = index * pages_->rows;
  const std::uint32_t rows = std::min(pages_->rows, rows_ - first);
  if (!pages_->stored[index]) {
    slot = std::make_shared<const ColumnView>(rows);
    return *slot;
  }
  const std::uint32_t entries = pages_->bases[index + 1] - pages_->bases[index];
  std::string key;
  PageCache* cache = pages_->cache.cache;
  Recency kept_as = Recency::least_recent;
  if (cache != nullptr) {
    const auto stored = static_cast<std::uint32_t>(
        std::count(pages_->stored.begin(), pages_->stored.begin() + index, true));
    key = PageCache::key(pages_->cache.column, pages_->id, stored, rows);
    auto cached = cache->find(key);
    if (cached && cached->dictionary_.size() == entries) {
      slot = std::move(cached);
      return *slot;
    }
    if (pages_->cache.read == PageRead::lookup || cache->admits(key))
      kept_as = Recency::most_recent;
  }
  // The stored page after the one loaded last is this one when none lies between.
  bool following = pages_->last != kNoPage && pages_->last < index;
  for (std::uint32_t between = pages_->last + 1; following && between < index; ++between)
    following = !pages_->stored[between];
  pages_->last = index;
  auto pinned = pages_->load(index, following);
  if (!pinned || pinned->size() < 8 ||
      read_le(std::string_view(pinned->data(), pinned->size()), 0, 8) != pages_->id) {
    throw damaged_column();
  }
  ColumnView view;
  view.rows_ = rows;
  std::string_view bytes(pinned->data() + 8, pinned->size() - 8);
  if (cache != nullptr) {  // a page kept has bytes of its own: it holds no block of the block cache
    view.bytes_ = std::make_unique<std::string>(bytes);
    bytes = *view.bytes_;
  } else {
    view.pinned_ = std::move(pinned);
  }
  auto parsed = parse(std::move(view), bytes);
  if (!parsed || parsed->dictionary_.size() != entries) throw damaged_column();
  slot = std::make_shared<const ColumnView>(std::move(*parsed));
  if (cache != nullptr) {
    slot = cache->keep(key, slot,
                       LruCache<ColumnView>::entry_bytes(key) + sizeof(ColumnView) + bytes.size() +
                           slot->checkpoint_bytes(),
                       kept_as);
  }
  return *slot;
}

std::uint32_t ColumnView::dictionary_size() const {
  return pages_ ? pages_->bases.back() : static_cast<std::uint32_t>(dictionary_.size());
}

std::optional<ColumnView> ColumnView::parse(ColumnView view, std::string_view bytes) {
  const std::uint32_t rows = view.rows_;
  const auto kinds = take(bytes, rows);
  if (!kinds) return std::nullopt;
  view.kinds_ = *kinds;
  const auto one_kind = counts_of_one_kind(view.kinds_.data(), view.kinds_.size());
  const KindCounts counts = one_kind ? *one_kind : count_blocks(view);
  if (counts.highest > static_cast<unsigned char>(CellKind::container)) return std::nullopt;
  const std::size_t numbers = counts.numbers;
  const std::size_t strings = counts.strings;
  view.has_containers_ = counts.containers != 0;
  view.uniform_numbers_ = numbers == rows;
  view.uniform_strings_ = strings == rows;
  view.one_kind_ = one_kind.has_value();
  const auto number_bytes = take(bytes, numbers * 8);
  if (!number_bytes) return std::nullopt;
  view.numbers_ = *number_bytes;
  // Entries and string indexes are checked where they are read (dictionary_entry, Cursor::next):
  // a read touches a few of them, a check here would touch all.
  auto dictionary = StringTable::take(bytes);
  if (!dictionary) return std::nullopt;
  view.dictionary_ = *dictionary;
  const auto indexes = take(bytes, strings * 4);
  if (!indexes || !bytes.empty()) return std::nullopt;
  view.string_indexes_ = *indexes;
  return view;
}

std::string_view ColumnView::dictionary_entry(std::uint32_t index) const {
  if (pages_) {
    const auto& bases = pages_->bases;
    if (index >= bases.back()) throw damaged_column();
    // The last page whose first index is at most `index` (pages without strings share a base).
    const auto at = std::upper_bound(bases.begin(), bases.end(), index) - bases.begin() - 1;
    return page(static_cast<std::uint32_t>(at)).dictionary_entry(index - bases[at]);
  }
  const auto entry = dictionary_.entry(index);
  if (!entry) throw damaged_column();
  return *entry;
}

void ColumnView::Cursor::damaged() {
  throw damaged_column();
}

void ColumnView::Cursor::skip(std::size_t rows) {
  const std::size_t target = row_ + rows;
  if (target >= end_) {  // past the view's kinds: the next next() finds the row's page, if any
    row_ = target;
    return;
  }
  if (view_->uniform_numbers_ || view_->uniform_strings_) {
    (view_->uniform_numbers_ ? next_number_ : next_string_) += rows;
    row_ = target;
    return;
  }
  // From the last block start at or before the target when it lies past the cursor's row.
  std::size_t from = row_;
  const std::size_t block = target / kKindBlock;
  if (block * kKindBlock > from && block < view_->numbers_before_.size()) {
    from = block * kKindBlock;
    next_number_ = view_->numbers_before_[block];
    next_string_ = view_->strings_before_[block];
  }
  const KindCounts passed = count_kinds(view_->kinds_.data() + from, target - from);
  next_number_ += passed.numbers;
  next_string_ += passed.strings;
  row_ = target;
}

CellKind ColumnView::Cursor::past_end() {
  if (enter_page()) return next();
  ++row_;
  return CellKind::absent;  // an all-absent column, or page, or a row past the column
}

bool ColumnView::Cursor::enter_page() {
  const Pages* pages = column_.pages_.get();
  const std::size_t row = first_ + row_;  // in the column
  if (pages == nullptr || row >= column_.rows_) return false;
  const auto page = static_cast<std::uint32_t>(row / pages->rows);
  if (page == page_) return false;
  view_ = &column_.page(page);
  page_ = page;
  first_ = static_cast<std::size_t>(page) * pages->rows;
  end_ = view_->kinds_.size();
  base_ = pages->bases[page];
  row_ = 0;
  next_number_ = 0;
  next_string_ = 0;
  skip(row - first_);
  return row_ < end_;
}

ColumnView::Cursor::Run ColumnView::Cursor::run(std::size_t most) {
  Run run;
  if (row_ >= end_ && !enter_page()) {
    run.rows = 1;
    return run;
  }
  const char* kinds = view_->kinds_.data();
  run.kind = static_cast<CellKind>(kinds[row_]);
  run.rows = std::min(most, end_ - row_);
  if (!view_->one_kind_) {
    std::size_t same = 1;
    while (same < run.rows && kinds[row_ + same] == kinds[row_])
      ++same;
    run.rows = same;
  }
  if (holds_number(run.kind)) {
    run.numbers = view_->numbers_.substr(next_number_ * 8, run.rows * 8);
  } else if (run.kind == CellKind::string) {
    run.string_indexes = view_->string_indexes_.substr(next_string_ * 4, run.rows * 4);
    run.base = base_;
    run.entries = static_cast<std::uint32_t>(view_->dictionary_.size());
  }
  return run;
}

}  // namespace eventsvc::plugins::rocksdb_storage
