#include "eventsvc/sdk/embedder.hpp"

namespace eventsvc::sdk {

double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 0;
  double dot = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    dot += static_cast<double>(a[i]) * b[i];
  return dot;
}

// Out-of-line destructors: they anchor each class's vtable and type_info in the SDK library, so
// host and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and
// exception matching work across the boundary.
Embedder::~Embedder() = default;

}  // namespace eventsvc::sdk
