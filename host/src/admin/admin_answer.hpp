// How the admin listener's pages answer: never cached (each answer is the state now).
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "eventsvc/sdk/json.hpp"
#include "server/http_message.hpp"

namespace eventsvc::host {

inline Answer admin_page(int status, std::string body, std::string_view content_type) {
  Answer answer;
  answer.status = status;
  answer.body = std::move(body);
  answer.headers.emplace_back("Content-Type", std::string(content_type));
  answer.headers.emplace_back("Cache-Control", "no-store");
  return answer;
}

inline Answer admin_json(int status, const sdk::json::object& body) {
  return admin_page(status, sdk::to_json(body), "application/json");
}

}  // namespace eventsvc::host
