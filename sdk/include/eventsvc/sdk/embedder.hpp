// Embedders turn text into a fixed-size vector for semantic ranking. The projector embeds every
// record when it is stored (the text of for_each_text_field); analyze embeds `vector.text` at
// request time and ranks candidates by cosine similarity. At most one embedder is active.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/plugin.hpp"

namespace eventsvc::sdk {

class Embedder : public Plugin {
 public:
  static constexpr PluginKind kKind = PluginKind::embedder;

  ~Embedder() override;

  // Identifies the model and its parameters. Stored with every vector: vectors made by another
  // model are not compared with this one's.
  virtual std::string model() const = 0;
  virtual std::size_t dimension() const = 0;
  // Deterministic, thread-safe, and L2-normalised (or all zeros for text with nothing to embed).
  virtual std::vector<float> embed(std::string_view text) const = 0;
};

// Cosine similarity of two L2-normalised vectors of equal size (their dot product); 0 when sizes
// differ.
double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace eventsvc::sdk
