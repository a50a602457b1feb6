// What went wrong in an embedded database, in words a client may read: RocksDB's own text names
// files on the server. A template over the status type, so that the toolkit does not depend on
// RocksDB; it is used with rocksdb::Status.
#pragma once

namespace eventsvc::toolkit {

template <class Status>
const char* status_words(const Status& status) {
  return status.IsNoSpace()      ? "no space left on the device"
         : status.IsIOError()    ? "an input/output error"
         : status.IsCorruption() ? "damaged data"
         : status.IsBusy() || status.IsTimedOut() || status.IsTryAgain() ? "busy"
                                                                         : "an internal error";
}

}  // namespace eventsvc::toolkit
