#include "query/candidate_stream.hpp"

#include <algorithm>

#include "eventsvc/toolkit/condition.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

int compare(const VersionRef& a, const VersionRef& b, sdk::Order order) {
  int result = 0;
  if (a.timestamp != b.timestamp) {
    result = a.timestamp < b.timestamp ? -1 : 1;
  } else {
    const int ids = a.id.compare(b.id);
    result = ids < 0 ? -1 : (ids > 0 ? 1 : 0);
  }
  return order == sdk::Order::asc ? result : -result;
}

namespace {

class KeyRangeStream final : public CandidateStream {
  static constexpr int kStepsBeforeSeek = 4;

 public:
  KeyRangeStream(Database& database, rocksdb::ColumnFamilyHandle* family, std::string prefix,
                 bool id_in_key, std::string fixed_id, const toolkit::TimeBounds& bounds,
                 sdk::Order order, bool fill_cache)
      : prefix_(std::move(prefix)), id_in_key_(id_in_key), order_(order) {
    current_.id = std::move(fixed_id);
    lower_ = prefix_;
    append_instant(lower_, bounds.lower);
    if (bounds.upper == INT64_MAX) {
      upper_ = prefix_successor(prefix_);
    } else {
      upper_ = prefix_;
      append_instant(upper_, bounds.upper + 1);
    }
    lower_slice_ = rocksdb::Slice(lower_);
    upper_slice_ = rocksdb::Slice(upper_);
    iterator_ = database.iterator(family, upper_.empty() ? nullptr : &upper_slice_, &lower_slice_,
                                  nullptr, fill_cache);
    if (order_ == sdk::Order::asc) {
      iterator_->SeekToFirst();
    } else {
      iterator_->SeekToLast();
    }
    load();
  }

  bool valid() const override { return valid_; }
  const VersionRef& current() const override { return current_; }
  std::string_view value() const override {
    return {iterator_->value().data(), iterator_->value().size()};
  }

  void next() override {
    if (order_ == sdk::Order::asc) {
      iterator_->Next();
    } else {
      iterator_->Prev();
    }
    load();
  }

  void seek(const VersionRef& target) override {
    if (!valid_ || compare(current_, target, order_) >= 0) return;
    // In an intersection of similar streams the target is usually a step or two away, and
    // stepping is far cheaper than a RocksDB seek.
    for (int step = 0; step < kStepsBeforeSeek; ++step) {
      next();
      if (!valid_ || compare(current_, target, order_) >= 0) return;
    }
    std::string key = prefix_;
    append_instant(key, target.timestamp);
    if (id_in_key_) key += target.id;
    if (order_ == sdk::Order::asc) {
      iterator_->Seek(key);
    } else {
      if (!id_in_key_) key.push_back('\xFF');
      iterator_->SeekForPrev(key);
    }
    load();
    while (valid_ && compare(current_, target, order_) < 0)
      next();
  }

 private:
  void load() {
    valid_ = iterator_->Valid();
    if (!valid_) {
      check(iterator_->status(), "index scan");
      return;
    }
    const rocksdb::Slice key = iterator_->key();
    const std::string_view tail(key.data() + prefix_.size(), key.size() - prefix_.size());
    current_.timestamp = read_instant(tail);
    if (id_in_key_) current_.id.assign(tail.substr(8));
  }

  std::string prefix_;
  bool id_in_key_;
  sdk::Order order_;
  std::string lower_;
  std::string upper_;
  rocksdb::Slice lower_slice_;
  rocksdb::Slice upper_slice_;
  std::unique_ptr<rocksdb::Iterator> iterator_;
  VersionRef current_;
  bool valid_ = false;
};

class UnionStream final : public CandidateStream {
 public:
  UnionStream(std::vector<StreamPtr> streams, sdk::Order order)
      : streams_(std::move(streams)), order_(order) {
    pick();
  }
  bool valid() const override { return best_ != nullptr; }
  const VersionRef& current() const override { return current_; }
  void next() override {
    const VersionRef passed = current_;
    for (auto& stream : streams_) {
      while (stream->valid() && compare(stream->current(), passed, order_) <= 0)
        stream->next();
    }
    pick();
  }
  void seek(const VersionRef& target) override {
    for (auto& stream : streams_)
      stream->seek(target);
    pick();
  }

 private:
  void pick() {
    best_ = nullptr;
    for (auto& stream : streams_) {
      if (stream->valid() &&
          (best_ == nullptr || compare(stream->current(), best_->current(), order_) < 0)) {
        best_ = stream.get();
      }
    }
    if (best_ != nullptr) current_ = best_->current();
  }

  std::vector<StreamPtr> streams_;
  sdk::Order order_;
  CandidateStream* best_ = nullptr;
  VersionRef current_;
};

class IntersectionStream final : public CandidateStream {
 public:
  IntersectionStream(std::vector<StreamPtr> streams, sdk::Order order)
      : streams_(std::move(streams)), order_(order) {
    align();
  }
  bool valid() const override { return valid_; }
  const VersionRef& current() const override { return current_; }
  void next() override {
    streams_.front()->next();
    align();
  }
  void seek(const VersionRef& target) override {
    for (auto& stream : streams_)
      stream->seek(target);
    align();
  }

 private:
  // Leapfrog: move every stream to the furthest current entry until all agree.
  void align() {
    while (true) {
      const VersionRef* furthest = nullptr;
      for (auto& stream : streams_) {
        if (!stream->valid()) {
          valid_ = false;
          return;
        }
        if (furthest == nullptr || compare(stream->current(), *furthest, order_) > 0) {
          furthest = &stream->current();
        }
      }
      const VersionRef target = *furthest;
      bool agreed = true;
      for (auto& stream : streams_) {
        stream->seek(target);
        if (!stream->valid()) {
          valid_ = false;
          return;
        }
        agreed = agreed && compare(stream->current(), target, order_) == 0;
      }
      if (agreed) {
        valid_ = true;
        current_ = target;
        return;
      }
    }
  }

  std::vector<StreamPtr> streams_;
  sdk::Order order_;
  VersionRef current_;
  bool valid_ = false;
};

class ListedStream final : public CandidateStream {
 public:
  ListedStream(std::vector<VersionRef> refs, sdk::Order order)
      : refs_(std::move(refs)), order_(order) {
    std::sort(refs_.begin(), refs_.end(),
              [&](const VersionRef& a, const VersionRef& b) { return compare(a, b, order_) < 0; });
    refs_.erase(std::unique(refs_.begin(), refs_.end(),
                            [&](const VersionRef& a, const VersionRef& b) {
                              return compare(a, b, order_) == 0;
                            }),
                refs_.end());
  }
  bool valid() const override { return position_ < refs_.size(); }
  const VersionRef& current() const override { return refs_[position_]; }
  void next() override { ++position_; }
  void seek(const VersionRef& target) override {
    const auto it = std::lower_bound(
        refs_.begin() + static_cast<std::ptrdiff_t>(position_), refs_.end(), target,
        [&](const VersionRef& a, const VersionRef& b) { return compare(a, b, order_) < 0; });
    position_ = static_cast<std::size_t>(it - refs_.begin());
  }

 private:
  std::vector<VersionRef> refs_;
  sdk::Order order_;
  std::size_t position_ = 0;
};

}  // namespace

StreamPtr key_range_stream(Database& database, rocksdb::ColumnFamilyHandle* family,
                           std::string prefix, bool id_in_key, std::string fixed_id,
                           const toolkit::TimeBounds& bounds, sdk::Order order, bool fill_cache) {
  return std::make_unique<KeyRangeStream>(database, family, std::move(prefix), id_in_key,
                                          std::move(fixed_id), bounds, order, fill_cache);
}

StreamPtr union_stream(std::vector<StreamPtr> streams, sdk::Order order) {
  if (streams.size() == 1) return std::move(streams.front());
  return std::make_unique<UnionStream>(std::move(streams), order);
}

StreamPtr intersection_stream(std::vector<StreamPtr> streams, sdk::Order order) {
  if (streams.size() == 1) return std::move(streams.front());
  return std::make_unique<IntersectionStream>(std::move(streams), order);
}

StreamPtr listed_stream(std::vector<VersionRef> refs, sdk::Order order) {
  return std::make_unique<ListedStream>(std::move(refs), order);
}

StreamPtr empty_stream() {
  return listed_stream({}, sdk::Order::asc);
}

}  // namespace eventsvc::plugins::rocksdb_storage
