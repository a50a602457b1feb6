// `gated`: an embedder for tests that holds the projector still on demand. While the file named by
// `gate` exists, embed() waits for it to be removed (two minutes at most), so a test can make
// projection fall behind acceptance for as long as it needs, without timing anything.
#pragma once

#include <filesystem>

#include "eventsvc/sdk/embedder.hpp"

namespace eventsvc::testing {

class GatedEmbedder final : public sdk::Embedder {
 public:
  static constexpr std::string_view kName = "gated";
  static const sdk::PluginInfo kInfo;  // with its config table, in gated_embedder.cpp
  explicit GatedEmbedder(const sdk::PluginContext& context);

  std::string model() const override { return "gated-v1/d4"; }
  std::size_t dimension() const override { return 4; }
  std::vector<float> embed(std::string_view text) const override;

 private:
  std::filesystem::path gate_;
};

}  // namespace eventsvc::testing
