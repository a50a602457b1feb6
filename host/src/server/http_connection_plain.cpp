#include "server/http_connection_impl.hpp"

namespace eventsvc::host {

template boost::asio::awaitable<void> serve_connection<PlainStream>(ConnectionHost&, PlainStream,
                                                                    ConnectionTable::Id,
                                                                    std::string);

}  // namespace eventsvc::host
