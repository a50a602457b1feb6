// The key file: every issued key's public metadata and the SHA-256 of the whole key, never the key
// itself. JSON, mode 0600, replaced atomically on every change. Readers notice changes made by
// another process (the `eventsvc keys` CLI next to a running server) on their next lookup. The
// file is checked when the server starts (load()); a damaged file found later is logged once and
// the keys read last stay in force, so that no request ever meets it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "eventsvc/sdk/auth.hpp"

namespace eventsvc::plugins::apikey {

struct StoredKey {
  sdk::KeyInfo info;
  std::string sha256;  // lowercase hex of the whole key text
};

using KeyIndex = std::unordered_map<std::string, StoredKey>;  // by id

class KeyStore {
 public:
  // `damaged` is told, once per change of the file, that a changed file could not be read.
  explicit KeyStore(std::filesystem::path file,
                    std::function<void(const std::string&)> damaged = nullptr);

  // Reads the file now; throws sdk::Error naming the file when it is damaged.
  void load();
  // The current keys; re-read when the file changed since the last call.
  std::shared_ptr<const KeyIndex> snapshot();

  // Applies `change` to the freshest keys under an exclusive file lock and writes the result.
  void modify(const std::function<void(KeyIndex&)>& change);

 private:
  struct Stamp {
    ino_t inode = 0;
    timespec modified{};
    off_t size = -1;
    bool operator==(const Stamp& other) const {
      return inode == other.inode && modified.tv_sec == other.modified.tv_sec &&
             modified.tv_nsec == other.modified.tv_nsec && size == other.size;
    }
  };

  Stamp stamp() const;
  KeyIndex read() const;
  void write(const KeyIndex& keys) const;

  std::filesystem::path file_;
  std::function<void(const std::string&)> damaged_;
  std::mutex mutex_;
  Stamp stamp_;
  std::shared_ptr<const KeyIndex> keys_;
};

}  // namespace eventsvc::plugins::apikey
