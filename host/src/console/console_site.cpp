#include "console/console_site.hpp"

#include "console/console_assets.hpp"
#include "export/gzip_encoder.hpp"
#include "server/http_response.hpp"

namespace eventsvc::host {

namespace {

// Only the page's own files; data goes to this origin only; no plugin, frame, base or form target.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'";

std::string_view content_type_of(std::string_view path) {
  const auto dot = path.rfind('.');
  const std::string_view extension = dot == std::string_view::npos ? "" : path.substr(dot);
  if (extension == ".html") return "text/html; charset=utf-8";
  if (extension == ".js") return "text/javascript; charset=utf-8";
  if (extension == ".css") return "text/css; charset=utf-8";
  if (extension == ".svg") return "image/svg+xml";
  if (extension == ".png") return "image/png";
  if (extension == ".json") return "application/json";
  if (extension == ".woff2") return "font/woff2";
  return "application/octet-stream";
}

std::string gzip(std::string_view bytes) {
  GzipEncoder encoder;
  std::string packed = encoder.chunk(bytes);
  packed += encoder.finish();
  return packed;
}

// The page says which listener served it. A page without the marker (console/index.html changed
// without this) would show the admin listener the API's views: refused at start instead.
std::string page_for(std::string_view page, ConsoleSite::Listener listener) {
  constexpr std::string_view api = R"(name="eventsvc-listener" content="api")";
  std::string text(page);
  const auto at = text.find(api);
  if (at == std::string::npos) {
    throw sdk::Error::internal("the built console's index.html lacks <meta " + std::string(api) +
                               ">");
  }
  if (listener == ConsoleSite::Listener::admin) {
    text.replace(at, api.size(), R"(name="eventsvc-listener" content="admin")");
  }
  return text;
}

}  // namespace

ConsoleSite::ConsoleSite(Listener listener) {
  for (const auto& asset : console_assets()) {
    File file;
    file.bytes =
        asset.path == "index.html" ? page_for(asset.bytes, listener) : std::string(asset.bytes);
    file.content_type = content_type_of(asset.path);
    file.immutable = asset.path.starts_with("assets/");
    if (std::string packed = gzip(file.bytes); packed.size() < file.bytes.size()) {
      file.gzipped = std::move(packed);
    }
    files_.emplace("/" + std::string(asset.path), std::move(file));
  }
}

std::optional<Answer> ConsoleSite::answer(const RequestHead& head) const {
  if (!serves(head.path())) return std::nullopt;
  const std::string* encodings = head.header("Accept-Encoding");
  return answer(head.method, head.path(), encodings != nullptr ? *encodings : std::string_view());
}

Answer ConsoleSite::answer(std::string_view method, std::string_view path,
                           std::string_view accept_encoding) const {
  Answer answer;
  answer.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (method != "GET" && method != "HEAD") {
    answer_with(answer, method_not_allowed(method, path, {"GET", "HEAD"}, answer.headers));
    return answer;
  }
  std::string_view name = path.substr(kPrefix.size());
  if (name.empty()) {
    // /console: the page's relative asset paths need the trailing slash.
    answer.status = 308;
    answer.headers.emplace_back("Location", "/console/");
    answer.headers.emplace_back("Content-Type", "application/json");
    answer.body = R"({"location":"/console/"})";
    return answer;
  }
  if (name == "/") name = "/index.html";
  const auto found = files_.find(name);
  if (found == files_.end()) {
    answer_with(answer, sdk::Error::not_found("no such console file: " + std::string(path) +
                                              "; the console is at /console/"));
    return answer;
  }
  const File& file = found->second;
  answer.status = 200;
  answer.headers.emplace_back("Content-Type", file.content_type);
  answer.headers.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy));
  answer.headers.emplace_back("Referrer-Policy", "no-referrer");
  answer.headers.emplace_back("X-Frame-Options", "DENY");
  answer.headers.emplace_back("Cache-Control",
                              file.immutable ? "public, max-age=31536000, immutable" : "no-cache");
  answer.headers.emplace_back("Vary", "Accept-Encoding");
  const std::string encodings(accept_encoding);
  if (!file.gzipped.empty() && header_names(&encodings, "gzip")) {
    answer.headers.emplace_back("Content-Encoding", "gzip");
    answer.body = file.gzipped;
  } else {
    answer.body = file.bytes;
  }
  return answer;
}

}  // namespace eventsvc::host
