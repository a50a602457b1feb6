#include "eventsvc/sdk/aggregate_pushdown.hpp"

namespace eventsvc::sdk {

std::string_view source_name(Source source) {
  return source == Source::current ? "current" : "history";
}

}  // namespace eventsvc::sdk
