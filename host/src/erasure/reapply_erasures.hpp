// The last step of `eventsvc restore`: the erasures of the erasure ledger (erasure_ledger.hpp) that
// the restored data does not know (made after the backup was taken) are carried out again, each
// with its own id, key and instant, before any server serves the data. An erasure the backup holds,
// or that a shared durable log holds (the restored server copies it from there), is left alone:
// done twice, it would also erase what was sent again after it.
#pragma once

#include <cstddef>
#include <filesystem>

#include "config/host_config.hpp"

namespace eventsvc::host {

struct ReappliedErasures {
  std::size_t in_ledger = 0;
  std::size_t reapplied = 0;
};

// Starts the plugins of `config` on its data directory, carries the erasures out, waits until each
// is hidden and stops them. Nothing when `ledger` does not exist. Throws sdk::Error when an erasure
// fails or the plugins cannot start.
ReappliedErasures reapply_erasures(const HostConfig& config, const std::filesystem::path& ledger);

}  // namespace eventsvc::host
