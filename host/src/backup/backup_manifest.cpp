#include "backup/backup_manifest.hpp"

#include <algorithm>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/files.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace json = sdk::json;
namespace fs = std::filesystem;

std::vector<BackupFile> BackupManifest::files_under(const fs::path& root) {
  std::vector<BackupFile> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const auto relative = entry.path().lexically_relative(root).generic_string();
    if (relative == kFileName) continue;
    files.push_back({relative, entry.file_size(), toolkit::sha256_hex_of_file(entry.path())});
  }
  std::sort(files.begin(), files.end(),
            [](const BackupFile& a, const BackupFile& b) { return a.path < b.path; });
  return files;
}

std::uint64_t BackupManifest::bytes() const {
  std::uint64_t total = 0;
  for (const auto& file : files)
    total += file.size;
  return total;
}

void BackupManifest::write(const fs::path& root) const {
  json::array instance_names;
  for (const auto& instance : instances)
    instance_names.emplace_back(instance);
  json::array listed;
  for (const auto& file : files) {
    listed.emplace_back(
        json::object{{"path", file.path}, {"size", file.size}, {"sha256", file.sha256}});
  }
  json::object object{{"format", format},
                      {"eventsvc", version},
                      {"created_at", toolkit::format_rfc3339(created_at)},
                      {"data_dir", data_dir},
                      {"instances", std::move(instance_names)},
                      {"files", std::move(listed)}};
  toolkit::write_sealed_json(root / kFileName, std::move(object));
}

namespace {

json::object manifest_object(const fs::path& root) {
  auto damaged = [&](const std::string& why) {
    return sdk::Error::bad_request("the backup in " + root.string() +
                                   " is damaged: " + BackupManifest::kFileName + " " + why);
  };
  auto sealed = toolkit::read_sealed_json(root / BackupManifest::kFileName);
  switch (sealed.state) {
    case toolkit::SealedJson::State::absent:
      throw sdk::Error::bad_request(root.string() + " is not an eventsvc backup: it has no " +
                                    BackupManifest::kFileName +
                                    " (a backup that did not finish has none)");
    case toolkit::SealedJson::State::not_an_object:
      throw damaged("is not a JSON object");
    case toolkit::SealedJson::State::unsealed:
      throw damaged("has no sha256");
    case toolkit::SealedJson::State::tampered:
      throw damaged("does not match its sha256");
    case toolkit::SealedJson::State::whole:
      break;
  }
  json::object object = std::move(sealed.object);
  const auto* format = object.if_contains("format");
  if (format == nullptr || !format->is_int64()) throw damaged("has no format");
  if (format->get_int64() > BackupManifest::kFormat) {
    throw sdk::Error::bad_request(
        "the backup in " + root.string() + " was made by a newer eventsvc (backup format " +
        std::to_string(format->get_int64()) + "); this one restores format " +
        std::to_string(BackupManifest::kFormat));
  }
  return object;
}

std::string string_of(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

}  // namespace

BackupManifest BackupManifest::read(const fs::path& root) {
  const json::object object = manifest_object(root);
  BackupManifest manifest;
  manifest.format = object.at("format").as_int64();
  manifest.version = string_of(object, "eventsvc");
  manifest.created_at = toolkit::parse_rfc3339(string_of(object, "created_at")).value_or(0);
  manifest.data_dir = string_of(object, "data_dir");
  try {
    for (const auto& instance : object.at("instances").as_array())
      manifest.instances.emplace_back(instance.as_string());
    for (const auto& entry : object.at("files").as_array()) {
      const auto& file = entry.as_object();
      manifest.files.push_back({std::string(file.at("path").as_string()),
                                file.at("size").to_number<std::uint64_t>(),
                                std::string(file.at("sha256").as_string())});
    }
  } catch (const std::exception&) {
    throw sdk::Error::bad_request("the backup in " + root.string() + " is damaged: " + kFileName +
                                  " does not list instances and files");
  }
  return manifest;
}

void BackupManifest::verify(const fs::path& root) const {
  for (const auto& file : files) {
    const fs::path path = root / file.path;
    auto damaged = [&](const std::string& why) {
      return sdk::Error::bad_request("the backup in " + root.string() +
                                     " is damaged: " + file.path + " " + why);
    };
    const fs::path relative(file.path);
    const bool outside =
        relative.is_absolute() || std::any_of(relative.begin(), relative.end(),
                                              [](const fs::path& part) { return part == ".."; });
    if (outside) throw damaged("is outside the backup");
    std::error_code error;
    const auto status = fs::symlink_status(path, error);
    if (error || !fs::exists(status)) throw damaged("is missing");
    if (!fs::is_regular_file(status)) throw damaged("is not a regular file");
    const auto size = fs::file_size(path, error);
    if (error) throw damaged("is missing");
    if (size != file.size) {
      throw damaged("has " + std::to_string(size) + " bytes, the backup listed " +
                    std::to_string(file.size));
    }
    if (toolkit::sha256_hex_of_file(path) != file.sha256)
      throw damaged("does not match its sha256");
  }
}

}  // namespace eventsvc::host
