// A projection round's column chunks, built on a second thread while the projector's thread does
// the rest of the round (history, current state, the BM25 counters, receipts), so that projection
// uses both cores. The projector hands over each new version as it decides to keep it and gets its
// row at once; finish() waits for the chunks and returns their keys and values.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "chunks/chunk_postings.hpp"
#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/record.hpp"
#include "store/term_filter.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class RoundChunks {
 public:
  // `chunk`: the number every tenant's chunk of this round gets; `filters`: where their filters
  // and directories are put as they are built; `page_rows`: of their columns.
  RoundChunks(std::uint64_t chunk, TermFilterCache& filters,
              std::uint32_t page_rows = kColumnPageRows);
  // Stops the thread; what it built is dropped unless finish() took it.
  ~RoundChunks();
  RoundChunks(const RoundChunks&) = delete;
  RoundChunks& operator=(const RoundChunks&) = delete;

  // Adds a version to its tenant's chunk; returns its row there. Neither may change afterwards.
  std::uint32_t add(const std::string& tenant, std::shared_ptr<const sdk::Record> record,
                    std::shared_ptr<const TokenCounts> tokens);
  bool empty() const { return rows_.empty(); }

  // Every key and value of the round's chunks (columns family): header, columns, term blocks.
  // Rethrows what the building thread threw.
  std::vector<std::pair<std::string, std::string>> finish();

 private:
  struct Version {
    std::shared_ptr<const std::string> tenant;
    std::shared_ptr<const sdk::Record> record;
    std::shared_ptr<const TokenCounts> tokens;
  };
  struct Tenant {
    std::shared_ptr<const std::string> name;  // shared with the building thread
    std::uint32_t rows = 0;
  };
  void build();
  void stop();

  std::uint64_t chunk_;
  TermFilterCache& filters_;
  std::uint32_t page_rows_;
  std::map<std::string, Tenant, std::less<>> rows_;  // the projector's side: rows so far

  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Version> queued_;  // guarded by mutex_
  bool closing_ = false;         // guarded by mutex_: nothing more will be queued
  bool abandoned_ = false;       // guarded by mutex_: stop without encoding

  // The building thread's own; read by finish() after the join.
  std::map<std::string, ChunkBuilder> chunks_;
  std::vector<std::pair<std::string, std::string>> encoded_;
  std::exception_ptr failure_;
  std::thread thread_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
