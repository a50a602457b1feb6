#include "max.hpp"

namespace eventsvc::plugins::aggregation {

sdk::Manifest Max::manifest() {
  return {"max", sdk::PluginKind::aggregation, "1.0.0", "Largest numeric value of a field", {}};
}

}  // namespace eventsvc::plugins::aggregation
