#include "store/data_catalogue.hpp"

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/files.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

std::optional<DataCatalogue> DataCatalogue::read(const std::filesystem::path& directory) {
  const auto path = directory / kFileName;
  auto damaged = [&](const std::string& why) {
    return sdk::Error::internal(path.string() + " is damaged: " + why);
  };
  auto sealed = toolkit::read_sealed_json(path);
  switch (sealed.state) {
    case toolkit::SealedJson::State::absent:
      return std::nullopt;
    case toolkit::SealedJson::State::not_an_object:
      throw damaged("not a JSON object");
    case toolkit::SealedJson::State::unsealed:
      throw damaged("no sha256");
    case toolkit::SealedJson::State::tampered:
      throw damaged("its sha256 does not match its content");
    case toolkit::SealedJson::State::whole:
      break;
  }
  const json::object& object = sealed.object;
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
  toolkit::write_sealed_json(
      directory / kFileName,
      {{"format", kFormat}, {"families", std::move(names)}, {"projected", projected}});
}

}  // namespace eventsvc::plugins::rocksdb_storage
