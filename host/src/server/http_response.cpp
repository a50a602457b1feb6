#include "server/http_response.hpp"

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/strings.hpp"

namespace eventsvc::host {

std::string error_body(const sdk::Error& error) {
  sdk::json::object body;
  body["statusCode"] = error.status();
  body["statusMessage"] = sdk::status_message(error.status());
  body["message"] = error.message();
  body["data"] = error.data();
  return sdk::to_json(body);
}

void answer_with(Answer& answer, const sdk::Error& error) {
  answer.status = error.status();
  answer.body = error_body(error);
  if (error.retry_after()) {
    answer.headers.emplace_back("Retry-After", std::to_string(*error.retry_after()));
  }
}

sdk::Error method_not_allowed(std::string_view method, std::string_view path,
                              const std::vector<std::string>& allowed, HeaderList& headers) {
  const std::string allow = sdk::join(allowed, ", ");
  headers.emplace_back("Allow", allow);
  return sdk::Error(405,
                    "method " + std::string(method) + " is not allowed on " + std::string(path) +
                        "; use " + allow,
                    {{"allowed_methods", sdk::json::array(allowed.begin(), allowed.end())}});
}

sdk::Error body_too_large(std::size_t limit) {
  return sdk::Error::payload_too_large(
      "request body is larger than " + std::to_string(limit) + " bytes", {{"limit_bytes", limit}});
}

}  // namespace eventsvc::host
