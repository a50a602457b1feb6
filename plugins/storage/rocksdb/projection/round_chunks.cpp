#include "projection/round_chunks.hpp"

#include "chunks/term_blocks.hpp"

namespace eventsvc::plugins::rocksdb_storage {

RoundChunks::RoundChunks(std::uint64_t chunk, TermFilterCache& filters, std::uint32_t page_rows)
    : chunk_(chunk), filters_(filters), page_rows_(page_rows), thread_([this] { build(); }) {}

RoundChunks::~RoundChunks() {
  {
    const std::lock_guard lock(mutex_);
    abandoned_ = true;
  }
  stop();
}

std::uint32_t RoundChunks::add(const std::string& tenant, std::shared_ptr<const sdk::Record> record,
                               std::shared_ptr<const TokenCounts> tokens) {
  auto it = rows_.find(tenant);
  if (it == rows_.end())
    it = rows_.emplace(tenant, Tenant{std::make_shared<const std::string>(tenant)}).first;
  const std::uint32_t row = it->second.rows++;
  {
    const std::lock_guard lock(mutex_);
    queued_.push_back({it->second.name, std::move(record), std::move(tokens)});
  }
  ready_.notify_one();
  return row;
}

std::vector<std::pair<std::string, std::string>> RoundChunks::finish() {
  stop();
  if (failure_) std::rethrow_exception(failure_);
  return std::move(encoded_);
}

void RoundChunks::stop() {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
  }
  ready_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void RoundChunks::build() {
  try {
    std::vector<Version> taken;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !queued_.empty() || closing_; });
        if (abandoned_) return;
        taken.swap(queued_);
        if (taken.empty() && closing_) break;
      }
      for (const auto& version : taken)
        chunks_.try_emplace(*version.tenant, page_rows_)
            .first->second.add(*version.record, *version.tokens);
      taken.clear();
    }
    for (const auto& [tenant, chunk] : chunks_) {
      for (auto& entry : chunk_entries(tenant, chunk_, chunk, &filters_))
        encoded_.push_back(std::move(entry));
    }
  } catch (...) {
    failure_ = std::current_exception();
  }
}

}  // namespace eventsvc::plugins::rocksdb_storage
