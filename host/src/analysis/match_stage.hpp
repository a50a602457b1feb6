// The match stage of an analyze request: the matching records that are materialised one by one
// (results, context, relationships, temporal windows, semantic ranking), read from storage up to
// scan_limit, and their authoritative order.
#pragma once

#include <vector>

#include "analysis/analyze_request.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

struct Matches {
  std::vector<sdk::Record> records;  // in delivery order
  std::vector<double> scores;        // per record: cosine when semantic, BM25 when ranked
  std::vector<std::size_t> order;    // indexes into records, authoritative order
  sdk::ScanStats stats;
  bool read = false;      // false: nothing needed records, none were read
  bool semantic = false;  // ordered by similarity to the request's vector text
  bool ranked = false;    // ordered by a score (semantic or BM25)
};

// The storage query of the request's matches: every one up to scan_limit, in authoritative order.
sdk::RecordQuery match_query(const AnalyzeRequest& request,
                             const std::vector<sdk::Condition>& where);

// Reads what the request materialises. When every match is counted elsewhere (`aggregated`: the
// aggregate stage; `pack_reads_cells`: the Context Pack reads them as cells), only what the results
// need is read: the first `limit` matches plus as many as can be excluded. Otherwise, and whenever
// a context pack reading records, relationships or semantic ranking need every match, matches are
// read up to scan_limit.
Matches run_match_stage(const AnalyzeRequest& request, const std::vector<sdk::Condition>& where,
                        bool aggregated, bool pack_reads_cells, const ModuleRegistry& modules,
                        const sdk::Tenant& tenant);

}  // namespace eventsvc::host
