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
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "eventsvc/sdk/storage.hpp"
#include "store/database.hpp"
#include "write/verdicts.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// The (occurred_at, id) of a version.
using VersionId = std::pair<sdk::Millis, std::string>;

class ChangeFeed {
 public:
  ChangeFeed(Database& database, Verdicts& verdicts) : database_(database), verdicts_(verdicts) {}

  // The place of an inbox entry: its durable log position when the log follower copied it.
  std::string place_of(std::uint64_t sequence, const std::string& tenant,
                       const std::string& receipt_id);

  // The entries of one projection round: ordinals continue from each tenant's last.
  class Round {
   public:
    Round(ChangeFeed& feed, sdk::Millis projected_at) : feed_(feed), projected_at_(projected_at) {}
    void add(rocksdb::WriteBatch& batch, const std::string& tenant, const std::string& place,
             const std::string& receipt_id, const std::vector<VersionId>& versions);
    bool empty() const { return next_ordinal_.empty(); }

   private:
    ChangeFeed& feed_;
    sdk::Millis projected_at_;
    std::map<std::string, std::uint64_t> next_ordinal_;
  };

  // Marks the erased versions of each receipt's entry (an erasure's round).
  void scrub(rocksdb::WriteBatch& batch, const std::string& tenant,
             const std::map<std::string, std::set<VersionId>>& by_receipt);

  sdk::ChangePosition head(const std::string& tenant);
  sdk::ChangeScan read(const std::string& tenant, const sdk::ChangeQuery& query,
                       const sdk::ChangeVisitor& visit);

 private:
  Database& database_;
  Verdicts& verdicts_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
