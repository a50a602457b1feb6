#include "eventsvc/sdk/cells.hpp"

#include <algorithm>

namespace eventsvc::sdk {

bool CellFields::names(std::string_view path) const {
  return std::any_of(named.begin(), named.end(),
                     [&](const FieldPath& field) { return field.text == path; });
}

void CellBlock::clear(std::size_t named_fields) {
  ids.clear();
  timestamps.clear();
  verifications.clear();
  json_sizes.clear();
  fields.resize(named_fields);
  for (auto& field : fields) {
    field.values.clear();
    field.rows.clear();
  }
}

}  // namespace eventsvc::sdk
