// Background work that yields the cores to ingest and questions: merges prepared on their own
// thread (merge/background_thread.hpp) and RocksDB's compactions run at a higher nice value than
// the threads that answer requests.
#pragma once

namespace eventsvc::plugins::rocksdb_storage {

// Adds `nice` to the calling thread's nice value (Linux: per thread). Where the system refuses,
// the thread keeps the priority it has.
void lower_thread_priority(int nice);

// What merges and compactions add: at +10 a busy core gives them about a tenth of its time
// against a thread at the default priority, and all of the time nothing else wants.
inline constexpr int kBackgroundNice = 10;

}  // namespace eventsvc::plugins::rocksdb_storage
