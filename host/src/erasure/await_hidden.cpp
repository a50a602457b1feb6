#include "erasure/await_hidden.hpp"

#include <chrono>
#include <thread>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace {

constexpr auto kWaitAtMost = std::chrono::minutes(30);

}  // namespace

void await_hidden(const Module<sdk::Storage>& storage, const std::vector<MadeErasure>& erasures) {
  const auto deadline = std::chrono::steady_clock::now() + kWaitAtMost;
  for (const auto& erasure : erasures) {
    const std::string& erasure_id = erasure.erasure_id;
    while (true) {
      const auto status =
          storage.call([&](sdk::Storage& s) { return s.erasure(erasure.tenant, erasure_id); });
      if (status && status->state == sdk::ErasureState::failed) {
        throw sdk::Error::internal("the erasure " + erasure_id + " failed: " + status->reason);
      }
      if (status && status->state != sdk::ErasureState::accepted) break;
      if (std::chrono::steady_clock::now() > deadline) {
        throw sdk::Error::internal("the erasure " + erasure_id +
                                   " was not carried out within 30 minutes");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

}  // namespace eventsvc::host
