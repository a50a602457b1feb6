#include "hashing_embedder.hpp"

#include <cmath>
#include <cstdint>

#include "eventsvc/toolkit/text.hpp"

namespace eventsvc::plugins::embedder {

namespace {

// Feature weights: whole words carry most of the signal, word pairs some order, trigrams spelling.
constexpr float kWordWeight = 1.0F;
constexpr float kPairWeight = 0.7F;
constexpr float kTrigramWeight = 0.3F;

std::uint64_t fnv1a(std::string_view kind, std::string_view feature) {
  std::uint64_t hash = 14695981039346656037ULL;
  auto mix = [&](std::string_view bytes) {
    for (const char c : bytes) {
      hash ^= static_cast<unsigned char>(c);
      hash *= 1099511628211ULL;
    }
  };
  mix(kind);
  mix(feature);
  return hash;
}

constexpr sdk::ConfigKey kConfig[] = {
    sdk::ConfigKey::integer("dimension", "Vector size")
        .defaults_to("256")
        .at_least(16)
        .at_most(4096),
};

}  // namespace

const sdk::PluginInfo HashingEmbedder::kInfo{
    "1.0.0",
    "Signed feature hashing of words, word pairs and character trigrams (lexical similarity)",
    kConfig};

HashingEmbedder::HashingEmbedder(const sdk::PluginContext& context)
    : dimension_(static_cast<std::size_t>(context.config.get_int("dimension"))) {}

std::string HashingEmbedder::model() const {
  return "hashing-v1/d" + std::to_string(dimension_);
}

std::vector<float> HashingEmbedder::embed(std::string_view text) const {
  std::vector<float> vector(dimension_, 0.0F);
  auto add = [&](std::string_view kind, std::string_view feature, float weight) {
    const std::uint64_t hash = fnv1a(kind, feature);
    const float sign = (hash >> 63U) != 0 ? -1.0F : 1.0F;
    vector[hash % dimension_] += sign * weight;
  };
  const auto words = toolkit::tokenize(text);
  for (std::size_t i = 0; i < words.size(); ++i) {
    add("w", words[i], kWordWeight);
    if (i + 1 < words.size()) add("p", words[i] + " " + words[i + 1], kPairWeight);
    const std::string padded = "^" + words[i] + "$";
    for (std::size_t j = 0; j + 3 <= padded.size(); ++j) {
      add("t", std::string_view(padded).substr(j, 3), kTrigramWeight);
    }
  }
  double norm = 0;
  for (const float value : vector)
    norm += static_cast<double>(value) * value;
  if (norm > 0) {
    const auto scale = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& value : vector)
      value *= scale;
  }
  return vector;
}

}  // namespace eventsvc::plugins::embedder
