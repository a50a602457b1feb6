// Waits, in a process that started the plugins for a command (restore, retention), until the
// erasures it made are carried out: the storage's projector does it in the background.
#pragma once

#include <string>
#include <vector>

#include "eventsvc/sdk/storage.hpp"
#include "modules/module.hpp"

namespace eventsvc::host {

struct MadeErasure {
  sdk::Tenant tenant;
  std::string erasure_id;
};

// Returns once each is hidden (or purged); throws sdk::Error 500 when one failed or is still
// accepted after 30 minutes.
void await_hidden(const Module<sdk::Storage>& storage, const std::vector<MadeErasure>& erasures);

}  // namespace eventsvc::host
