// `relationship_fields` (DESIGN §5): values of the named fields that occur together in one event,
// as pairs of fields (or single values when one field is named), with how often, first and last
// seen, and up to 10 event ids (the earliest).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/record.hpp"

namespace eventsvc::host {

inline constexpr std::size_t kRelationshipEventIds = 10;

class RelationshipBuilder {
 public:
  RelationshipBuilder(const std::vector<sdk::FieldPath>& fields, std::size_t limit)
      : fields_(fields), limit_(limit) {}

  void add(const sdk::Record& record);
  // Most frequent first (ties: first seen earlier, then values). At most `limit`.
  sdk::json::array results() const;

 private:
  struct Relationship {
    std::vector<std::string> fields;
    sdk::json::array values;
    std::uint64_t count = 0;
    sdk::Millis first_seen = 0;
    sdk::Millis last_seen = 0;
    std::vector<std::pair<sdk::Millis, std::string>> events;  // earliest, sorted
  };
  void count(const std::vector<std::size_t>& members, const std::vector<sdk::json::value>& values,
             const sdk::Record& record);

  const std::vector<sdk::FieldPath>& fields_;
  std::size_t limit_;
  std::map<std::string, Relationship> relationships_;
};

}  // namespace eventsvc::host
