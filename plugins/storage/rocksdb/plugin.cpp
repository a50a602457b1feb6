#include "rocksdb_storage.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::rocksdb_storage::RocksdbStorage)
