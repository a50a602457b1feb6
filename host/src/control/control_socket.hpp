// The server's control socket: a Unix socket in the data directory (`control.sock`, mode 0600)
// through which a command run on the same machine reaches the running server (`eventsvc backup`).
// Its authority is the file system's, as with PostgreSQL's local socket: whoever may open it may
// read the data directory anyway. A request is one JSON object on one line and so is its answer;
// requests are served one at a time, on the socket's own thread, so a long one (a backup) holds
// back the next command, never an API request.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "eventsvc/sdk/json.hpp"
#include "logging/log_sink.hpp"

namespace eventsvc::host {

inline constexpr const char* kControlSocketName = "control.sock";

// The answer to a request: {"ok": true, ...} or {"ok": false, "status": N, "message": "..."}.
using ControlHandler = std::function<sdk::json::object(const sdk::json::object& request)>;

class ControlSocket {
 public:
  ControlSocket(std::filesystem::path path, ControlHandler handler, LogSink& log);
  ~ControlSocket();
  ControlSocket(const ControlSocket&) = delete;
  ControlSocket& operator=(const ControlSocket&) = delete;

  // Binds (a socket file left by a server that is gone is replaced) and starts the thread. Throws
  // sdk::Error 500 naming the path when it cannot.
  void start();
  // Stops taking requests, waits for the one under way, removes the socket file.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Sends `request` to the server listening on `path` and returns its answer; nullopt when no server
// listens there. Throws sdk::Error 500 when the server's answer cannot be read.
std::optional<sdk::json::object> ask_server(const std::filesystem::path& path,
                                            const sdk::json::object& request);

// ask_server() for a command whose answer carries its result as `field` ({"ok": true, field:
// {...}}): that object, or nullopt when no server listens. Throws sdk::Error 500 with the server's
// message when it refused the command.
std::optional<sdk::json::object> ask_server_for(const std::filesystem::path& path,
                                                const sdk::json::object& request,
                                                std::string_view field);

}  // namespace eventsvc::host
