#include "api/endpoint_base.hpp"

#include <cmath>

namespace eventsvc::host {

double elapsed_ms_since(std::chrono::steady_clock::time_point started) {
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return std::round(ms * 1000) / 1000;
}

}  // namespace eventsvc::host
