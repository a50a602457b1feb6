#include "feed/change_feed.hpp"

#include <algorithm>
#include <optional>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/condition.hpp"
#include "log/log_follower.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

constexpr char kEntryTag = 'E';
constexpr char kReceiptTag = 'R';
constexpr char kSequencePlace = 0x00;
constexpr char kLogPlace = 0x01;
constexpr std::size_t kIndexBytes = 4;

struct FeedEntry {
  std::uint64_t first_ordinal = 0;
  sdk::Millis projected_at = 0;
  std::string receipt_id;
  std::vector<std::optional<VersionId>> versions;  // nullopt: erased
};

std::string encode_entry(const FeedEntry& entry) {
  std::string out;
  append_u64(out, entry.first_ordinal);
  append_instant(out, entry.projected_at);
  append_string(out, entry.receipt_id);
  append_varint(out, entry.versions.size());
  for (const auto& version : entry.versions) {
    out += static_cast<char>(version ? 1 : 0);
    if (!version) continue;
    append_instant(out, version->first);
    append_string(out, version->second);
  }
  return out;
}

FeedEntry decode_entry(std::string_view bytes) {
  const auto damaged = [] { return sdk::Error::internal("a change feed entry is damaged"); };
  if (bytes.size() < 16) throw damaged();
  FeedEntry entry;
  entry.first_ordinal = read_u64(bytes);
  entry.projected_at = read_instant(bytes.substr(8));
  bytes.remove_prefix(16);
  const auto receipt = take_string(bytes);
  const auto count = take_varint(bytes);
  if (!receipt || !count || *count > bytes.size()) throw damaged();
  entry.receipt_id = std::string(*receipt);
  entry.versions.reserve(*count);
  for (std::uint64_t i = 0; i < *count; ++i) {
    if (bytes.empty()) throw damaged();
    const bool alive = bytes.front() == 1;
    bytes.remove_prefix(1);
    if (!alive) {
      entry.versions.emplace_back(std::nullopt);
      continue;
    }
    if (bytes.size() < 8) throw damaged();
    const sdk::Millis instant = read_instant(bytes);
    bytes.remove_prefix(8);
    const auto id = take_string(bytes);
    if (!id) throw damaged();
    entry.versions.emplace_back(VersionId{instant, std::string(*id)});
  }
  return entry;
}

std::string entries_prefix(const std::string& tenant) {
  return tenant + kEntryTag;
}

std::string receipt_key(const std::string& tenant, std::string_view receipt_id) {
  std::string key = tenant + kReceiptTag;
  key += receipt_id;
  return key;
}

std::string version_position(std::string_view place, std::size_t index) {
  std::string out(place);
  for (int shift = 24; shift >= 0; shift -= 8)
    out += static_cast<char>((index >> static_cast<unsigned>(shift)) & 0xFFU);
  return out;
}

// A version's position split into its entry's place and its index.
struct PlaceAndIndex {
  std::string place;
  std::size_t index = 0;
};

PlaceAndIndex split_position(std::string_view position) {
  const bool sequence = !position.empty() && position.front() == kSequencePlace;
  const bool log = !position.empty() && position.front() == kLogPlace;
  if ((!sequence && !log) || position.size() < 2 + kIndexBytes ||
      (sequence && position.size() != 1 + 8 + kIndexBytes)) {
    throw sdk::Error::bad_request("the position is not one of this server's change feed");
  }
  PlaceAndIndex out;
  out.place = std::string(position.substr(0, position.size() - kIndexBytes));
  for (std::size_t i = position.size() - kIndexBytes; i < position.size(); ++i)
    out.index = (out.index << 8U) | static_cast<unsigned char>(position[i]);
  return out;
}

// The place of the entry a version's position is in ("" for the empty position).
std::string entry_place(const std::string& position) {
  return position.empty() ? std::string() : position.substr(0, position.size() - kIndexBytes);
}

// The versions of the entry at `place` (of `size` versions) that a read after `after` up to
// `until` covers: [begin, end); `last` when the entry is `until`'s.
struct EntrySpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool last = false;
};

EntrySpan entry_span(std::string_view place, std::size_t size,
                     const std::optional<PlaceAndIndex>& after,
                     const std::optional<PlaceAndIndex>& until) {
  EntrySpan span;
  span.begin = after && place == after->place ? after->index + 1 : 0;
  span.last = until && place == until->place;
  span.end = span.last ? std::min(until->index + 1, size) : size;
  return span;
}

std::string_view place_of_key(const rocksdb::Iterator& it, std::size_t prefix_size) {
  return {it.key().data() + prefix_size, it.key().size() - prefix_size};
}

}  // namespace

std::string ChangeFeed::place_of(std::uint64_t sequence, const std::string& tenant,
                                 const std::string& receipt_id) {
  std::string place;
  if (auto position = LogFollower::position_of(database_, sequence, tenant, receipt_id)) {
    place += kLogPlace;
    place += *position;
  } else {
    place += kSequencePlace;
    append_u64(place, sequence);
  }
  return place;
}

void ChangeFeed::Round::add(rocksdb::WriteBatch& batch, const std::string& tenant,
                            const std::string& place, const std::string& receipt_id,
                            const std::vector<std::shared_ptr<const sdk::Record>>& records) {
  if (records.empty()) return;
  auto next = next_.find(tenant);
  if (next == next_.end()) {
    const sdk::ChangePosition head = feed_.head(tenant);
    next = next_.emplace(tenant, Next{head.ordinal + 1, entry_place(head.bytes)}).first;
  }
  FeedEntry entry;
  entry.first_ordinal = next->second.ordinal;
  entry.projected_at = projected_at_;
  entry.receipt_id = receipt_id;
  entry.versions.reserve(records.size());
  for (const auto& record : records)
    entry.versions.emplace_back(VersionId{record->timestamp, record->id});
  next->second.ordinal += records.size();
  batch.Put(feed_.database_.changes, entries_prefix(tenant) + place, encode_entry(entry));
  batch.Put(feed_.database_.changes, receipt_key(tenant, receipt_id), place);
  entries_.emplace_back(tenant, RecentEntry{place, entry.first_ordinal, receipt_id, records});
}

void ChangeFeed::Round::commit() {
  for (auto& [tenant, entry] : entries_)
    feed_.recent_.append(tenant, next_.at(tenant).start, std::move(entry));
  entries_.clear();
}

void ChangeFeed::scrub(rocksdb::WriteBatch& batch, const std::string& tenant,
                       const std::map<std::string, std::set<VersionId>>& by_receipt) {
  recent_.forget(tenant);
  const std::string newest = newest_place(tenant);
  for (const auto& [receipt_id, erased] : by_receipt) {
    const auto place = database_.get(database_.changes, receipt_key(tenant, receipt_id));
    if (!place) continue;  // projected before the feed existed
    const std::string key = entries_prefix(tenant) + *place;
    const auto stored = database_.get(database_.changes, key);
    if (!stored) continue;
    FeedEntry entry = decode_entry(*stored);
    bool any_left = false;
    for (auto& version : entry.versions) {
      if (version && erased.contains(*version)) version.reset();
      any_left = any_left || version.has_value();
    }
    // An entry with nothing left goes (retention's erasures empty the oldest), but for the
    // tenant's newest: the ordinals of later entries continue from it.
    if (!any_left && *place != newest) {
      batch.Delete(database_.changes, key);
      batch.Delete(database_.changes, receipt_key(tenant, receipt_id));
      continue;
    }
    batch.Put(database_.changes, key, encode_entry(entry));
  }
}

std::string ChangeFeed::newest_place(const std::string& tenant) {
  return entry_place(head(tenant).bytes);
}

sdk::ChangePosition ChangeFeed::head(const std::string& tenant) {
  const std::string prefix = entries_prefix(tenant);
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database_.iterator(database_.changes, &upper_slice);
  it->SeekToLast();
  sdk::ChangePosition head;
  if (it->Valid() && it->key().starts_with(prefix)) {
    const FeedEntry entry = decode_entry(std::string_view(it->value().data(), it->value().size()));
    head.bytes = version_position(place_of_key(*it, prefix.size()), entry.versions.size() - 1);
    head.ordinal = entry.first_ordinal + entry.versions.size() - 1;
  }
  check(it->status(), "change feed scan");
  return head;
}

std::optional<sdk::ChangeScan> ChangeFeed::read_recent(const std::string& tenant,
                                                       const sdk::ChangeQuery& query,
                                                       const sdk::ChangeVisitor& visit) {
  std::optional<PlaceAndIndex> after;
  if (!query.after.empty()) after = split_position(query.after);
  const auto span =
      recent_.after(tenant, after ? after->place : std::string(), query.scan_limit + 1);
  if (!span) return std::nullopt;
  std::optional<PlaceAndIndex> until;
  if (!query.until.empty()) until = split_position(query.until);

  sdk::ChangeScan scan;
  scan.last.bytes = query.after;
  std::size_t matched = 0;
  for (auto entry : span->entries) {
    if (until && entry->place > until->place) {
      scan.at_end = true;
      return scan;
    }
    const EntrySpan versions = entry_span(entry->place, entry->records.size(), after, until);
    if (versions.begin >= versions.end && !versions.last) continue;
    // One verdict per write, and the entry's records carry it from then on.
    const sdk::Verification verification = verdicts_.of(tenant, entry->receipt_id);
    if (std::any_of(entry->records.begin(), entry->records.end(), [&](const auto& record) {
          return record && record->verification != verification;
        })) {
      entry = recent_.update_verification(tenant, entry, verification);
    }
    for (std::size_t index = versions.begin; index < versions.end; ++index) {
      if (scan.read >= query.scan_limit || matched >= query.limit) return scan;
      ++scan.read;
      scan.last = {version_position(entry->place, index), entry->first_ordinal + index};
      const sdk::Record& record = *entry->records[index];
      if (!toolkit::matches_all(record, query.where)) continue;
      ++matched;
      if (!visit(scan.last, record)) return scan;
    }
    if (versions.last) {
      scan.at_end = true;
      return scan;
    }
  }
  scan.at_end = span->to_the_end;
  return scan;
}

sdk::ChangeScan ChangeFeed::read(const std::string& tenant, const sdk::ChangeQuery& query,
                                 const sdk::ChangeVisitor& visit) {
  if (!query.since) {
    if (auto recent = read_recent(tenant, query, visit)) return std::move(*recent);
  }
  const std::string prefix = entries_prefix(tenant);
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database_.iterator(database_.changes, &upper_slice);

  sdk::ChangeScan scan;
  scan.last.bytes = query.after;
  std::optional<PlaceAndIndex> after;
  if (!query.since && !query.after.empty()) after = split_position(query.after);
  std::optional<PlaceAndIndex> until;
  if (!query.until.empty()) until = split_position(query.until);

  it->Seek(after ? prefix + after->place : prefix);
  std::size_t matched = 0;
  bool stopped = false;
  for (; it->Valid() && !stopped; it->Next()) {
    const std::string_view place = place_of_key(*it, prefix.size());
    if (until && place > until->place) {
      scan.at_end = true;
      return scan;
    }
    const std::string_view value(it->value().data(), it->value().size());
    if (query.since && read_instant(value.substr(8)) < *query.since) continue;
    const FeedEntry entry = decode_entry(value);
    const EntrySpan versions = entry_span(place, entry.versions.size(), after, until);
    // One verdict per write.
    std::optional<sdk::Verification> verification;
    for (std::size_t index = versions.begin; index < versions.end; ++index) {
      if (scan.read >= query.scan_limit || matched >= query.limit) {
        stopped = true;
        break;
      }
      ++scan.read;
      sdk::ChangePosition position{version_position(place, index), entry.first_ordinal + index};
      const auto& version = entry.versions[index];
      std::optional<std::string> stored;
      if (version) {
        stored =
            database_.get(database_.history, version_key(tenant, version->first, version->second));
      }
      scan.last = position;
      if (!stored) continue;  // erased since
      sdk::Record record = decode_record(*stored);
      if (!toolkit::matches_all(record, query.where)) continue;
      if (!verification) verification = verdicts_.of(tenant, entry.receipt_id);
      record.verification = *verification;
      ++matched;
      if (!visit(position, record)) {
        stopped = true;
        break;
      }
    }
    if (versions.last && !stopped) {
      scan.at_end = true;
      return scan;
    }
  }
  check(it->status(), "change feed scan");
  if (!stopped) scan.at_end = true;
  return scan;
}

}  // namespace eventsvc::plugins::rocksdb_storage
