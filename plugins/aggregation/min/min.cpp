#include "min.hpp"

namespace eventsvc::plugins::aggregation {

sdk::Manifest Min::manifest() {
  return {"min", sdk::PluginKind::aggregation, "1.0.0", "Smallest numeric value of a field", {}};
}

}  // namespace eventsvc::plugins::aggregation
