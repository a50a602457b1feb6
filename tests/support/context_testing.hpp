// Building Context Pack inputs in tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "eventsvc/sdk/context_mode.hpp"
#include "eventsvc/toolkit/context_pack.hpp"
#include "eventsvc/toolkit/digest.hpp"

namespace eventsvc::testing {

inline constexpr sdk::Millis kT0 = 1795336200000;  // 2026-11-22T08:30:00Z

// Records are kept alive here; ContextInput points into them.
class RecordSet {
 public:
  sdk::Record& add(std::string id, sdk::Millis at, sdk::json::value payload,
                   sdk::Verification verification = sdk::Verification::verified) {
    auto record = std::make_unique<sdk::Record>();
    record->id = std::move(id);
    record->type = "reading";
    record->stream = "plant";
    record->timestamp = at;
    record->ingested_at = at + 10;
    record->receipt_id = "req_00000000000000" + std::to_string(10 + records_.size());
    record->payload = std::move(payload);
    record->proof_digest = toolkit::sha256_hex(record->id + std::to_string(at));
    record->verification = verification;
    records_.push_back(std::move(record));
    return *records_.back();
  }

  // Every record in insertion order, as the engine hands them over: all of them the results.
  sdk::ContextInput input(sdk::ContextRequest request, sdk::Millis now) const {
    sdk::ContextInput input;
    for (const auto& record : records_)
      input.results.push_back(record.get());
    input.request = std::move(request);
    input.now = now;
    toolkit::serve_cells_from_records(input, input.results);
    return input;
  }

 private:
  std::vector<std::unique_ptr<sdk::Record>> records_;
};

inline std::vector<sdk::FieldPath> fields(std::initializer_list<const char*> names) {
  std::vector<sdk::FieldPath> out;
  for (const char* name : names)
    out.push_back(*sdk::FieldPath::parse(name));
  return out;
}

}  // namespace eventsvc::testing
