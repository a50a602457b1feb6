// Context Pack modes, one plugin per `context.mode` (API-SPEC 2.8, DESIGN §6). A mode receives
// the analysis result and returns the `context` object plus the records it cites, which the host
// marks in `results[].source_roles`. Modes must be deterministic: the same input gives a
// byte-identical context.
//
// Every mode gets the same input: the answer's results, decoded, and every match as cells
// (cells.hpp), read when the mode asks for them. A mode that reads every match says so
// (reads_every_match): the host then lets storage hand the cells over from its columns instead of
// decoding tens of thousands of records first.
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
  ContextRequest request;
  // The answer's `results`, decoded, in authoritative order (relevance when ranked, else time per
  // `order`).
  std::vector<const Record*> results;
  // Every matched record not excluded by the request, as cells of `fields`, block by block. Rows
  // are numbered from 0 in the order delivered, which is not the authoritative order; a citation
  // names a row. Returns whether the read was complete (not cut by scan_limit). Call at most once.
  std::function<bool(const CellFields& fields, const CellVisitor& visit)> cells;
  // The records with these keys, in the order asked (the documents a pack quotes whole).
  std::function<std::vector<Record>(const std::vector<RecordKey>& keys)> load;
  // Subject of a record: the values of these fields (the request's group_by); empty: its id.
  std::vector<FieldPath> subject_fields;
  // Attribute paths the request named (where, group_by, aggregation fields, relationship_fields),
  // payload.* and metrics.* only. Empty: every scalar leaf of payload and metrics is in scope.
  std::vector<FieldPath> attributes;
  // Of those, the ones the request treats as categories (named in relationship_fields, as the
  // field of a `distinct` aggregation, or in an `eq` or `in` condition): their numbers are codes
  // (a mode, a floor, an error code), not readings, and a decision pack reads them as states.
  std::vector<FieldPath> state_attributes;
  // Matched records removed by excluded_document_ids, and whether the host's read of the matches
  // was complete (not cut by scan_limit). When the host hands the matches over only through
  // cells() (a mode that reads_every_match), both are known once cells() has returned.
  std::size_t excluded_by_request = 0;
  bool scan_complete = true;
  Millis now = 0;
};

// A record the context cites, by its row in ContextInput::cells, and the role it plays:
// fact_source, transition, contradiction or latest_state.
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
  // True: build() reads every match through ContextInput::cells, so the host need not decode the
  // matches before calling it (a mode that reads only `results` leaves it false).
  virtual bool reads_every_match() const { return false; }
};

}  // namespace eventsvc::sdk
