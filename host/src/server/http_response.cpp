#include "server/http_response.hpp"

#include "eventsvc/sdk/json.hpp"

namespace eventsvc::host {

std::string error_body(const sdk::Error& error) {
  sdk::json::object body;
  body["statusCode"] = error.status();
  body["statusMessage"] = sdk::status_message(error.status());
  body["message"] = error.message();
  body["data"] = error.data();
  return sdk::to_json(body);
}

void send_json(Poco::Net::HTTPServerResponse& response, int status, std::string_view body,
               const HeaderList& headers) {
  try {
    response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status),
                                std::string(sdk::status_message(status)));
    for (const auto& [name, value] : headers)
      response.set(name, value);
    response.setContentType("application/json");
    response.setContentLength64(static_cast<Poco::Int64>(body.size()));
    response.sendBuffer(body.data(), body.size());
  } catch (const std::exception&) {
    // The connection is gone; nothing left to tell the client.
  }
}

}  // namespace eventsvc::host
