// Context Pack modes, one plugin per `context.mode` (API-SPEC 2.8, DESIGN §6). A mode receives
// the analysis result and returns the `context` object plus the records it cites, which the host
// marks in `results[].source_roles`. Modes must be deterministic: the same input gives a
// byte-identical context.
//
// A mode reads the matched records either decoded (`records`, the default) or, when it reads every
// match, field by field (`cells`, cells.hpp): then the host lets storage hand over columns instead
// of decoding tens of thousands of records, and the mode sees them in no particular order.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/cells.hpp"
#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/plugin.hpp"
#include "eventsvc/sdk/record.hpp"

namespace eventsvc::sdk {

inline constexpr std::string_view kContextSchemaVersion = "1.1";

// The request's `context` object with defaults applied.
struct ContextRequest {
  std::string mode = "documents";
  std::size_t token_budget = 4000;
  bool include_documents = false;
  std::size_t max_facts = 20;
  std::size_t max_timeline = 16;
  std::size_t max_contradictions = 12;
  Millis contradiction_window_ms = 5000;
  Millis expected_freshness_ms = 900000;
};

struct ContextInput {
  // Every matched record not excluded by the request, in authoritative order (relevance when
  // ranked, else time per `order`). The first `result_limit` of them are the answer's `results`.
  std::vector<const Record*> records;
  std::size_t result_limit = 0;
  ContextRequest request;
  // Subject of a record: the values of these fields (the request's group_by); empty: its id.
  std::vector<FieldPath> subject_fields;
  // Attribute paths the request named (where, group_by, aggregation fields, relationship_fields),
  // payload.* and metrics.* only. Empty: every scalar leaf of payload and metrics is in scope.
  std::vector<FieldPath> attributes;
  // Of those, the ones the request treats as categories (named in relationship_fields, as the
  // field of a `distinct` aggregation, or in an `eq` or `in` condition): their numbers are codes
  // (a mode, a floor, an error code), not readings, and a decision pack reads them as states.
  std::vector<FieldPath> state_attributes;
  // Matched records removed by excluded_document_ids; for a cells mode, counted once cells()
  // has returned.
  std::size_t excluded_by_request = 0;
  bool scan_complete = true;
  Millis now = 0;

  // For a mode that reads cells (ContextMode::reads_cells), in place of `records`, `result_limit`
  // and `scan_complete`: every matched record not excluded by the request, as cells of `fields`,
  // block by block. Rows are numbered from 0 in the order delivered, which is not the
  // authoritative order. Returns whether the read was complete (not cut by scan_limit). Call once.
  std::function<bool(const CellFields& fields, const CellVisitor& visit)> cells;
  // The records with these keys, in the order asked (a cells mode's documents).
  std::function<std::vector<Record>(const std::vector<RecordKey>& keys)> load;
};

// A record the context cites, by index into ContextInput::records (a cells mode: its row number),
// and the role it plays: fact_source, transition, contradiction or latest_state.
struct Citation {
  std::size_t record = 0;
  std::string role;
};

struct ContextOutput {
  json::object context;
  std::vector<Citation> citations;
};

class ContextMode : public Plugin {
 public:
  static constexpr PluginKind kKind = PluginKind::context_mode;

  ~ContextMode() override;

  // The `context.mode` value this plugin serves.
  virtual std::string_view mode() const = 0;
  virtual ContextOutput build(const ContextInput& input) const = 0;
  // True: build() reads ContextInput::cells, not records.
  virtual bool reads_cells() const { return false; }
};

}  // namespace eventsvc::sdk
