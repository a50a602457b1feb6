#include "store/term_filter.hpp"

#include <algorithm>

#include "store/key_codec.hpp"
#include "store/little_endian.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

constexpr char kFormat = 1;
constexpr char kPartedFormat = 2;
constexpr std::size_t kHeadFixedBytes = 2 + 4 + 4;  // format, probes, blocks, blocks per part
constexpr std::uint8_t kProbes = 6;
constexpr std::size_t kBitsPerTerm = 10;
constexpr std::size_t kBlockBytes = 64;
constexpr std::size_t kBlockBits = kBlockBytes * 8;
constexpr std::size_t kHeaderBytes = 2;

// MurmurHash64A over the bytes, read little-endian whatever the machine: the filter format fixes
// it, so it must not change with the library or the platform.
std::uint64_t murmur64(std::string_view term, std::uint64_t seed) {
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  std::uint64_t h = seed ^ (term.size() * m);
  const std::size_t whole = term.size() / 8;
  for (std::size_t i = 0; i < whole; ++i) {
    // One load a word: a filter of a large chunk is a megabyte, hashed when it is read.
    std::uint64_t k = read_le(term, i * 8, 8);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const auto* data = reinterpret_cast<const unsigned char*>(term.data()) + whole * 8;
  const std::size_t tail = term.size() & 7;
  if (tail != 0) {
    for (std::size_t byte = tail; byte-- > 0;)
      h ^= static_cast<std::uint64_t>(data[byte]) << (8 * byte);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

std::uint64_t hash_term(TermIndex index, std::string_view term) {
  return murmur64(term, 0x65766e7473766321ULL + static_cast<std::uint64_t>(index));
}

// The block of a hash among `blocks` (the high half, scaled without a division).
std::size_t block_of(std::uint64_t hash, std::size_t blocks) {
  return static_cast<std::size_t>(((hash >> 32) * static_cast<std::uint64_t>(blocks)) >> 32);
}

// Calls bit(position) for each of the `probes` bits of a hash within its block (from the low
// half, remixed by a multiplication per probe).
template <typename Bit>
void for_each_probe(std::uint64_t hash, std::uint8_t probes, Bit&& bit) {
  auto mix = static_cast<std::uint32_t>(hash);
  for (std::uint8_t i = 0; i < probes; ++i) {
    bit(mix >> (32 - 9));  // 9 bits: 0..511
    mix *= 0x9e3779b9U;
  }
}

// Whether every probe bit of `hash` is set in `block`.
bool block_holds(const unsigned char* block, std::uint64_t hash, std::uint8_t probes) {
  bool all = true;
  for_each_probe(hash, probes, [&](std::uint32_t bit) {
    all = all && (block[bit / 8] & (1U << (bit % 8))) != 0;
  });
  return all;
}

}  // namespace

void TermFilterBuilder::add(TermIndex index, std::string_view term) {
  hashes_.push_back(hash_term(index, term));
}

std::string TermFilterBuilder::build() const {
  const std::size_t blocks =
      std::max<std::size_t>(1, (hashes_.size() * kBitsPerTerm + kBlockBits - 1) / kBlockBits);
  std::string filter(kHeaderBytes + blocks * kBlockBytes, '\0');
  filter[0] = kFormat;
  filter[1] = static_cast<char>(kProbes);
  auto* bytes = reinterpret_cast<unsigned char*>(filter.data() + kHeaderBytes);
  for (const auto hash : hashes_) {
    unsigned char* block = bytes + block_of(hash, blocks) * kBlockBytes;
    for_each_probe(hash, kProbes, [&](std::uint32_t bit) {
      block[bit / 8] |= static_cast<unsigned char>(1U << (bit % 8));
    });
  }
  return filter;
}

bool term_filter_may_hold(std::string_view filter, TermIndex index, std::string_view term) {
  if (filter.size() < kHeaderBytes + kBlockBytes || filter[0] != kFormat ||
      (filter.size() - kHeaderBytes) % kBlockBytes != 0) {
    return true;
  }
  const auto probes = static_cast<std::uint8_t>(filter[1]);
  const std::size_t blocks = (filter.size() - kHeaderBytes) / kBlockBytes;
  const std::uint64_t hash = hash_term(index, term);
  const auto* block = reinterpret_cast<const unsigned char*>(filter.data() + kHeaderBytes) +
                      block_of(hash, blocks) * kBlockBytes;
  return block_holds(block, hash, probes);
}

StoredTermFilter store_term_filter(std::string filter) {
  StoredTermFilter stored;
  const std::size_t blocks =
      filter.size() < kHeaderBytes ? 0 : (filter.size() - kHeaderBytes) / kBlockBytes;
  if (blocks <= kTermFilterPartBlocks) {
    stored.head = std::move(filter);
    return stored;
  }
  constexpr std::size_t part_bytes = kTermFilterPartBlocks * kBlockBytes;
  stored.head.push_back(kPartedFormat);
  stored.head.push_back(filter[1]);
  append_u32_le(stored.head, static_cast<std::uint32_t>(blocks));
  append_u32_le(stored.head, static_cast<std::uint32_t>(kTermFilterPartBlocks));
  for (std::size_t at = kHeaderBytes; at < filter.size(); at += part_bytes) {
    std::string part = filter.substr(at, part_bytes);
    const std::uint64_t id = term_filter_part_id(part);
    append_u64_le(stored.head, id);
    stored.parts.emplace_back(id, std::move(part));
  }
  return stored;
}

std::optional<TermFilterPart> term_filter_part(std::string_view head, TermIndex index,
                                               std::string_view term) {
  if (head.size() < kHeadFixedBytes || head[0] != kPartedFormat) return std::nullopt;
  const std::size_t blocks = read_le(head, 2, 4);
  const std::size_t per_part = read_le(head, 6, 4);
  if (blocks == 0 || per_part == 0) return std::nullopt;
  const std::size_t parts = (blocks + per_part - 1) / per_part;
  if (head.size() != kHeadFixedBytes + parts * 8) return std::nullopt;
  TermFilterPart part;
  part.hash = hash_term(index, term);
  const std::size_t block = block_of(part.hash, blocks);
  part.number = static_cast<std::uint32_t>(block / per_part);
  part.block = block % per_part;
  part.id = read_le(head, kHeadFixedBytes + std::size_t{part.number} * 8, 8);
  part.probes = static_cast<std::uint8_t>(head[1]);
  return part;
}

bool term_filter_part_holds(std::string_view bytes, const TermFilterPart& part) {
  if (bytes.size() % kBlockBytes != 0 || (part.block + 1) * kBlockBytes > bytes.size()) return true;
  const auto* block =
      reinterpret_cast<const unsigned char*>(bytes.data()) + part.block * kBlockBytes;
  return block_holds(block, part.hash, part.probes);
}

std::uint64_t term_filter_part_id(std::string_view bytes) {
  return content_id(bytes, 0x66696c7465727061ULL);
}

std::uint64_t content_id(std::string_view bytes, std::uint64_t seed) {
  const std::uint64_t id = murmur64(bytes, seed);
  return id != 0 ? id : 1;
}

std::uint64_t term_filter_id(std::string_view filter) {
  return content_id(filter, 0x66696c7465722121ULL);
}

std::string TermFilterCache::key_of(std::string_view tenant, std::uint64_t chunk, std::uint64_t id,
                                    ChunkSummary kind) const {
  std::string key(tenant);
  key.push_back('\0');
  key.push_back(static_cast<char>(kind));
  append_u64(key, chunk);
  append_u64(key, id);
  return key;
}

std::shared_ptr<const std::string> TermFilterCache::get(
    std::string_view tenant, std::uint64_t chunk, std::uint64_t id,
    const std::function<std::optional<std::string>()>& load, ChunkSummary kind) {
  const std::string key = key_of(tenant, chunk, id, kind);
  if (auto found = entries_.find(key)) return found;
  // Read outside the lock: two readers may both read a filter the first time, and keep one.
  auto loaded = load();
  if (!loaded) return nullptr;
  const std::size_t size = loaded->size();
  return entries_.keep(key, std::make_shared<const std::string>(std::move(*loaded)), size);
}

void TermFilterCache::put(std::string_view tenant, std::uint64_t chunk, std::uint64_t id,
                          std::string bytes, ChunkSummary kind) {
  const std::size_t size = bytes.size();
  entries_.keep(key_of(tenant, chunk, id, kind),
                std::make_shared<const std::string>(std::move(bytes)), size);
}

}  // namespace eventsvc::plugins::rocksdb_storage
