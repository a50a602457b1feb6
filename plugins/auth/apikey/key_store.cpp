#include "key_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/files.hpp"

namespace eventsvc::plugins::apikey {

namespace json = sdk::json;

namespace {

json::object to_json(const StoredKey& key) {
  json::array scopes;
  for (const auto& scope : key.info.scopes)
    scopes.emplace_back(scope);
  json::object out{{"id", key.info.id},
                   {"sha256", key.sha256},
                   {"workspace", key.info.tenant.workspace},
                   {"env", sdk::environment_name(key.info.tenant.environment)},
                   {"scopes", std::move(scopes)},
                   {"plan", key.info.plan},
                   {"label", key.info.label},
                   {"created_at", key.info.created_at}};
  out["revoked_at"] =
      key.info.revoked_at ? json::value(*key.info.revoked_at) : json::value(nullptr);
  return out;
}

StoredKey from_json(const json::object& object) {
  StoredKey key;
  key.info.id = object.at("id").as_string();
  key.sha256 = object.at("sha256").as_string();
  key.info.tenant.workspace = object.at("workspace").as_string();
  key.info.tenant.environment =
      sdk::parse_environment(object.at("env").as_string()).value_or(sdk::Environment::test);
  for (const auto& scope : object.at("scopes").as_array()) {
    key.info.scopes.emplace_back(scope.as_string());
  }
  key.info.plan = object.at("plan").as_string();
  key.info.label = object.at("label").as_string();
  key.info.created_at = object.at("created_at").to_number<sdk::Millis>();
  if (const auto& revoked = object.at("revoked_at"); !revoked.is_null()) {
    key.info.revoked_at = revoked.to_number<sdk::Millis>();
  }
  return key;
}

// Holds an exclusive flock on a lock file beside the key file for its lifetime.
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) {
      throw sdk::Error::internal("cannot lock " + path.string());
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace

KeyStore::KeyStore(std::filesystem::path file, std::function<void(const std::string&)> damaged)
    : file_(std::move(file)), damaged_(std::move(damaged)) {}

KeyStore::Stamp KeyStore::stamp() const {
  struct stat info {};
  if (::stat(file_.c_str(), &info) != 0) return {};
  return {info.st_ino, info.st_mtim, info.st_size};
}

KeyIndex KeyStore::read() const {
  KeyIndex keys;
  std::ifstream in(file_);
  if (!in) return keys;
  std::ostringstream text;
  text << in.rdbuf();
  json::value document;
  try {
    document = sdk::parse_json(text.str());
  } catch (const std::exception&) {
    throw sdk::Error::internal(file_.string() + " is damaged: it is not valid JSON");
  }
  try {
    for (const auto& entry : document.at("keys").as_array()) {
      StoredKey key = from_json(entry.as_object());
      keys.emplace(key.info.id, std::move(key));
    }
  } catch (const std::exception&) {
    throw sdk::Error::internal(file_.string() +
                               " is damaged: it is not a list of keys with id, sha256, workspace, "
                               "env, scopes, plan, label, created_at and revoked_at");
  }
  return keys;
}

void KeyStore::write(const KeyIndex& keys) const {
  std::vector<const StoredKey*> ordered;
  for (const auto& [id, key] : keys)
    ordered.push_back(&key);
  std::sort(ordered.begin(), ordered.end(), [](const StoredKey* a, const StoredKey* b) {
    return a->info.created_at != b->info.created_at ? a->info.created_at < b->info.created_at
                                                    : a->info.id < b->info.id;
  });
  json::array list;
  for (const auto* key : ordered)
    list.emplace_back(to_json(*key));
  toolkit::replace_file(
      file_, sdk::to_json(json::object{{"version", 1}, {"keys", std::move(list)}}), 0600);
}

void KeyStore::load() {
  const Stamp current = stamp();
  auto keys = std::make_shared<const KeyIndex>(read());
  const std::lock_guard lock(mutex_);
  keys_ = std::move(keys);
  stamp_ = current;
}

std::shared_ptr<const KeyIndex> KeyStore::snapshot() {
  const Stamp current = stamp();
  const std::lock_guard lock(mutex_);
  if (!keys_ || !(current == stamp_)) {
    stamp_ = current;  // a damaged file is reported once, not at every request
    try {
      keys_ = std::make_shared<const KeyIndex>(read());
    } catch (const sdk::Error& error) {
      if (damaged_) damaged_(error.message() + "; the keys read before stay in force");
      if (!keys_) keys_ = std::make_shared<const KeyIndex>();
    }
  }
  return keys_;
}

void KeyStore::modify(const std::function<void(KeyIndex&)>& change) {
  const FileLock lock(file_.string() + ".lock");
  KeyIndex keys = read();
  change(keys);
  write(keys);
}

}  // namespace eventsvc::plugins::apikey
