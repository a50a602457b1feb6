// The rate-limited operations of the API, one per endpoint.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace eventsvc::host {

enum class Operation : std::size_t { ingest, receipts, search, query, analyze };

inline constexpr std::array<Operation, 5> kOperations = {Operation::ingest, Operation::receipts,
                                                         Operation::search, Operation::query,
                                                         Operation::analyze};

constexpr std::string_view operation_name(Operation operation) {
  constexpr std::array<std::string_view, 5> kNames = {"ingest", "receipts", "search", "query",
                                                      "analyze"};
  return kNames[static_cast<std::size_t>(operation)];
}

}  // namespace eventsvc::host
