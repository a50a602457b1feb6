// The change feed (sdk/storage.hpp, "the change feed"): per tenant, the versions each projected
// write made searchable, in the order the projector made them so, which is log order. Written in
// the projection round's batch, so an entry is visible exactly when its versions are searchable.
//
//   entry    <tenant> 'E' <place>  ->  <first ordinal:8> <projected_at:8> <receipt id string>
//                                      <count varint> then per version: <1> <instant:8> <id string>
//                                      or <0> for a version erased since
//   receipt  <tenant> 'R' <receipt id>  ->  <place>: where an erasure finds the entry to scrub
//
// A place is the write's position: 0x01 then the durable log's position when the write was copied
// from a log plugin (so every server of a cluster has the same places), else 0x00 then the inbox
// sequence (8 bytes). A version's position is its entry's place then its index (4 bytes): what a
// client resumes from. Ordinals count a tenant's versions from 1 and are never reused, so two
// positions' ordinals tell how many versions lie between them.
#pragma once

#include <rocksdb/write_batch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "eventsvc/sdk/storage.hpp"
#include "feed/recent_feed.hpp"
#include "store/database.hpp"
#include "write/verdicts.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// The (occurred_at, id) of a version.
using VersionId = std::pair<sdk::Millis, std::string>;

class ChangeFeed {
 public:
  ChangeFeed(Database& database, Verdicts& verdicts) : database_(database), verdicts_(verdicts) {}

  // Versions the recent entries hold, every tenant together.
  static constexpr std::size_t kRecentVersions = 65536;

  // The place of an inbox entry: its durable log position when the log follower copied it.
  std::string place_of(std::uint64_t sequence, const std::string& tenant,
                       const std::string& receipt_id);

  // The entries of one projection round: ordinals continue from each tenant's last. Once the
  // round's batch is written, commit() hands them to the recent entries live tails read.
  class Round {
   public:
    Round(ChangeFeed& feed, sdk::Millis projected_at) : feed_(feed), projected_at_(projected_at) {}
    // `records`: the versions the write stored, as the projector made them.
    void add(rocksdb::WriteBatch& batch, const std::string& tenant, const std::string& place,
             const std::string& receipt_id,
             const std::vector<std::shared_ptr<const sdk::Record>>& records);
    bool empty() const { return next_.empty(); }
    void commit();

   private:
    struct Next {
      std::uint64_t ordinal = 0;
      std::string start;  // the tenant's newest place before the round
    };
    ChangeFeed& feed_;
    sdk::Millis projected_at_;
    std::map<std::string, Next> next_;
    std::vector<std::pair<std::string, RecentEntry>> entries_;
  };

  // Marks the erased versions of each receipt's entry (an erasure's round); an entry left with
  // none goes, unless it is the tenant's newest. Drops the tenant's recent entries at once.
  void scrub(rocksdb::WriteBatch& batch, const std::string& tenant,
             const std::map<std::string, std::set<VersionId>>& by_receipt);

  // After a round whose write failed (it may yet have been applied): the recent entries could now
  // miss one, so reads go to the database until rounds refill them.
  void forget_recent() { recent_.forget_all(); }

  sdk::ChangePosition head(const std::string& tenant);
  sdk::ChangeScan read(const std::string& tenant, const sdk::ChangeQuery& query,
                       const sdk::ChangeVisitor& visit);

 private:
  std::string newest_place(const std::string& tenant);
  // A read served by the recent entries; nullopt when they do not reach back to its position.
  std::optional<sdk::ChangeScan> read_recent(const std::string& tenant,
                                             const sdk::ChangeQuery& query,
                                             const sdk::ChangeVisitor& visit);

  Database& database_;
  Verdicts& verdicts_;
  RecentFeed recent_{kRecentVersions};
};

}  // namespace eventsvc::plugins::rocksdb_storage
