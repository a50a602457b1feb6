// The rate-limited operations of the API, one per endpoint.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace eventsvc::host {

enum class Operation : std::size_t { ingest, receipts, search, query, analyze, erasures };

inline constexpr std::array<Operation, 6> kOperations = {Operation::ingest,  Operation::receipts,
                                                         Operation::search,  Operation::query,
                                                         Operation::analyze, Operation::erasures};

constexpr std::string_view operation_name(Operation operation) {
  constexpr std::array<std::string_view, 6> kNames = {"ingest", "receipts", "search",
                                                      "query",  "analyze",  "erasures"};
  return kNames[static_cast<std::size_t>(operation)];
}

}  // namespace eventsvc::host
