#include "eventsvc/sdk/embedder.hpp"

namespace eventsvc::sdk {

double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 0;
  double dot = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    dot += static_cast<double>(a[i]) * b[i];
  return dot;
}

}  // namespace eventsvc::sdk
