// The browser console's files at /console/ (docs/console.md): GET and HEAD, keyless like
// /openapi.yaml (the page signs in from the browser), gzip when the browser takes it, and headers
// that let the page run its own files only: a Content-Security-Policy without inline script or
// style, connections to this origin alone, no framing, no referrer.
//
// One site per listener: the API listener's page signs in with an API key and shows the data
// views; the admin listener's signs in with the admin token and shows keys and operations. The
// page learns which from its <meta name="eventsvc-listener">, written here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "server/http_message.hpp"

namespace eventsvc::host {

class ConsoleSite {
 public:
  enum class Listener { api, admin };

  explicit ConsoleSite(Listener listener);

  static constexpr std::string_view kPrefix = "/console";

  static bool serves(std::string_view path) {
    return path == kPrefix || (path.starts_with(kPrefix) && path[kPrefix.size()] == '/');
  }
  // The answer for a path under /console (serves(path)): the file, a redirect of /console to
  // /console/, 404 for no such file, 405 for a method other than GET or HEAD. `accept_encoding`
  // is the request's Accept-Encoding header (empty when none).
  Answer answer(std::string_view method, std::string_view path,
                std::string_view accept_encoding) const;
  // The answer to an API listener's request for a console path; nullopt for any other path.
  std::optional<Answer> answer(const RequestHead& head) const;

 private:
  struct File {
    std::string bytes;
    std::string gzipped;  // empty when gzip does not make it smaller
    std::string content_type;
    bool immutable = false;  // named by its content's hash: cached for good
  };
  std::map<std::string, File, std::less<>> files_;
};

}  // namespace eventsvc::host
