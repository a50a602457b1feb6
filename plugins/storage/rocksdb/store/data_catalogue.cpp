#include "store/data_catalogue.hpp"

#include <fstream>
#include <sstream>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/files.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

std::optional<DataCatalogue> DataCatalogue::read(const std::filesystem::path& directory) {
  const auto path = directory / kFileName;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  auto damaged = [&](const std::string& why) {
    return sdk::Error::internal(path.string() + " is damaged: " + why);
  };
  json::object object;
  try {
    object = sdk::parse_json(text.str()).as_object();
  } catch (const std::exception&) {
    throw damaged("not a JSON object");
  }
  const auto* digest = object.if_contains("sha256");
  if (digest == nullptr || !digest->is_string()) throw damaged("no sha256");
  const std::string recorded(digest->get_string());
  object.erase("sha256");
  if (toolkit::sha256_hex(sdk::canonical_json(object)) != recorded) {
    throw damaged("its sha256 does not match its content");
  }
  const auto* format = object.if_contains("format");
  if (format == nullptr || !format->is_int64() || format->get_int64() != kFormat) {
    throw damaged("format is not " + std::to_string(kFormat));
  }
  DataCatalogue catalogue;
  const auto* families = object.if_contains("families");
  const auto* projected = object.if_contains("projected");
  if (families == nullptr || !families->is_array() || projected == nullptr ||
      !(projected->is_uint64() || projected->is_int64())) {
    throw damaged("families or projected missing");
  }
  for (const auto& family : families->get_array()) {
    if (!family.is_string()) throw damaged("a family is not a name");
    catalogue.families.emplace_back(family.get_string());
  }
  catalogue.projected = projected->to_number<std::uint64_t>();
  return catalogue;
}

void DataCatalogue::write(const std::filesystem::path& directory) const {
  json::array names;
  for (const auto& family : families)
    names.emplace_back(family);
  json::object object{
      {"format", kFormat}, {"families", std::move(names)}, {"projected", projected}};
  object["sha256"] = toolkit::sha256_hex(sdk::canonical_json(object));
  toolkit::replace_file(directory / kFileName, sdk::to_json(object) + "\n");
}

}  // namespace eventsvc::plugins::rocksdb_storage
