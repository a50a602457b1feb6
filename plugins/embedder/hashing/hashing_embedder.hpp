// A deterministic, dependency-free text embedding: signed feature hashing of word unigrams, word
// bigrams and character trigrams into a fixed dimension, L2-normalised. Cosine similarity of two
// vectors then measures how much vocabulary and spelling two texts share: lexical similarity, not
// meaning ("car" and "automobile" are unrelated to it). Another embedder plugin can replace it;
// stored vectors record the model that made them.
#pragma once

#include "eventsvc/sdk/embedder.hpp"

namespace eventsvc::plugins::embedder {

class HashingEmbedder final : public sdk::Embedder {
 public:
  static constexpr std::string_view kName = "hashing";
  static const sdk::PluginInfo kInfo;  // with its config table, in hashing_embedder.cpp
  explicit HashingEmbedder(const sdk::PluginContext& context);

  std::string model() const override;
  std::size_t dimension() const override { return dimension_; }
  std::vector<float> embed(std::string_view text) const override;

 private:
  std::size_t dimension_;
};

}  // namespace eventsvc::plugins::embedder
