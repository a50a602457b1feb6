#include "gated_embedder.hpp"

#include <chrono>
#include <thread>

namespace eventsvc::testing {

namespace {

constexpr sdk::ConfigKey kConfig[] = {
    sdk::ConfigKey::string("gate", "While this file exists, embedding waits for its removal")
        .defaults_to(R"("")"),
};

}  // namespace

const sdk::PluginInfo GatedEmbedder::kInfo{
    "1.0.0", "Test embedder that waits while a gate file exists", kConfig};

GatedEmbedder::GatedEmbedder(const sdk::PluginContext& context)
    : gate_(context.config.get_string("gate")) {
  if (gate_.empty()) context.config.fail("gate", "name the gate file");
}

std::vector<float> GatedEmbedder::embed(std::string_view text) const {
  // Bounded, so that a test that forgets its gate fails instead of hanging the server.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  std::error_code error;
  while (std::filesystem::exists(gate_, error) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<float> vector(dimension(), 0.0F);
  vector[text.size() % dimension()] = 1.0F;
  return vector;
}

}  // namespace eventsvc::testing
