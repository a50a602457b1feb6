#include "server/beast_response.hpp"

#include <boost/beast/http/field.hpp>
#include <ctime>

namespace eventsvc::host {

namespace http = boost::beast::http;

namespace {

// The current time in the form of the Date header, made once a second per thread.
const char* http_date() {
  thread_local std::time_t made = 0;
  thread_local char text[40] = {};
  const std::time_t now = std::time(nullptr);
  if (now != made) {
    std::tm parts{};
    gmtime_r(&now, &parts);
    std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &parts);
    made = now;
  }
  return text;
}

template <class Response>
void set_head(Response& response, const Answer& answer, bool keep_alive) {
  response.set(http::field::server, "eventsvc");
  response.set(http::field::date, http_date());
  response.set(http::field::content_type, "application/json");
  for (const auto& [name, value] : answer.headers)
    response.set(name, value);
  response.keep_alive(keep_alive);
}

}  // namespace

StreamedResponse streamed_response(const Answer& answer, bool keep_alive) {
  StreamedResponse response{static_cast<http::status>(answer.status), 11};
  set_head(response, answer, keep_alive);
  response.chunked(true);
  return response;
}

BeastResponse beast_response(Answer& answer, bool keep_alive, bool head_only) {
  BeastResponse response{static_cast<http::status>(answer.status), 11};
  set_head(response, answer, keep_alive);
  const std::size_t size = answer.body.size();
  if (head_only) {
    response.content_length(size);
  } else {
    response.body() = std::move(answer.body);
    response.prepare_payload();
  }
  return response;
}

}  // namespace eventsvc::host
