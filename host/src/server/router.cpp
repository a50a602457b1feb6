#include "server/router.hpp"

namespace eventsvc::host {

namespace {
std::vector<std::string_view> split(std::string_view path) {
  std::vector<std::string_view> segments;
  if (path.empty() || path.front() != '/') return segments;
  path.remove_prefix(1);
  while (true) {
    const std::size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}
}  // namespace

void Router::add(std::string method, const std::string& path_template,
                 std::shared_ptr<Endpoint> endpoint) {
  Route route{std::move(method), {}, std::move(endpoint)};
  for (const auto segment : split(path_template)) {
    route.segments.emplace_back(segment.starts_with('{') ? "{}" : std::string(segment));
  }
  routes_.push_back(std::move(route));
}

Router::Match Router::match(std::string_view method, std::string_view path) const {
  Match result;
  const auto segments = split(path);
  for (const auto& route : routes_) {
    if (route.segments.size() != segments.size()) continue;
    std::vector<std::string> params;
    bool same = true;
    for (std::size_t i = 0; i < segments.size() && same; ++i) {
      if (route.segments[i] == "{}") {
        same = !segments[i].empty();
        params.emplace_back(segments[i]);
      } else {
        same = route.segments[i] == segments[i];
      }
    }
    if (!same) continue;
    if (route.method == method) {
      result.endpoint = route.endpoint.get();
      result.params = std::move(params);
      return result;
    }
    result.allowed_methods.push_back(route.method);
  }
  return result;
}

}  // namespace eventsvc::host
