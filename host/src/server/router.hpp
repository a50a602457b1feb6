// Maps (method, path) to an endpoint. Path templates use {name} for one segment.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/endpoint.hpp"

namespace eventsvc::host {

class Router {
 public:
  void add(std::string method, const std::string& path_template,
           std::shared_ptr<Endpoint> endpoint);

  struct Match {
    Endpoint* endpoint = nullptr;
    std::vector<std::string> params;
    std::vector<std::string> allowed_methods;  // the path exists with other methods (405)
  };
  Match match(std::string_view method, std::string_view path) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;  // "{}" for a parameter
    std::shared_ptr<Endpoint> endpoint;
  };
  std::vector<Route> routes_;
};

}  // namespace eventsvc::host
