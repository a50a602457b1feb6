// The stages of an analyze request that work on the materialised matches: which of them are shown
// (select), their temporal neighbours (windows), the freshness block and the Context Pack.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/analyze_request.hpp"
#include "analysis/match_stage.hpp"
#include "eventsvc/sdk/principal.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

struct Selection {
  std::vector<std::size_t> kept;  // matches not excluded by the request, in authoritative order
  std::size_t excluded = 0;       // matches the request excluded
  std::size_t shown = 0;          // the first `shown` of kept are the results
  std::vector<std::set<std::string>> roles;  // per record: its source_roles
};

Selection select_results(const AnalyzeRequest& request, const Matches& matches);

// Temporal windows of the first min(shown, 20) results; marks anchors and shown neighbours. No
// neighbour is older than `horizon` (the plan's retention).
sdk::json::array temporal_windows(const AnalyzeRequest& request, const Matches& matches,
                                  Selection& selection, const ModuleRegistry& modules,
                                  const sdk::Tenant& tenant, sdk::Millis horizon);

// The workspace's freshness, and `matched`: that of `matched` records (null: none were read).
sdk::json::object freshness(const AnalyzeRequest& request, const sdk::StorageStatus& status,
                            const std::vector<const sdk::Record*>* matched, sdk::Millis now);

// Whether the request's Context Pack reads its matches as cells straight from storage: a mode that
// reads cells, over matches in time order (not ranked), and no relationships (which need the
// records anyway).
bool pack_reads_storage_cells(const AnalyzeRequest& request, const ModuleRegistry& modules);

struct Pack {
  sdk::json::object context;
  // When the pack read the matches from storage as cells: that read, and their newest timestamp.
  std::optional<sdk::ScanStats> read;
  std::optional<sdk::Millis> newest;
};

// The Context Pack of the kept matches (or, `from_storage_cells` as pack_reads_storage_cells
// said, of every match of `where`, read by the pack); marks the shown records it cites.
// `complete`: whether every match that the pack should have seen was read.
Pack context_pack(const AnalyzeRequest& request, const std::vector<sdk::Condition>& where,
                  const Matches& matches, Selection& selection, bool complete,
                  bool from_storage_cells, const ModuleRegistry& modules, const sdk::Tenant& tenant,
                  sdk::Millis now);

}  // namespace eventsvc::host
