// gzip (RFC 1952) for a body written in chunks: each chunk comes out flushed (a client holds
// every whole line sent so far, however the connection ends), the last with the gzip trailer.
#pragma once

#include <zlib.h>

#include <string>
#include <string_view>

namespace eventsvc::host {

class GzipEncoder {
 public:
  GzipEncoder();
  ~GzipEncoder();
  GzipEncoder(const GzipEncoder&) = delete;
  GzipEncoder& operator=(const GzipEncoder&) = delete;

  // `bytes` compressed and flushed to a byte boundary.
  std::string chunk(std::string_view bytes);
  // What ends the stream: the rest and the trailer.
  std::string finish();

 private:
  std::string deflate_all(std::string_view bytes, int flush);

  z_stream stream_{};
};

}  // namespace eventsvc::host
