#include "export/gzip_encoder.hpp"

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace {

// 15 window bits, +16: a gzip wrapper rather than zlib's. Level 1: an export is bound by how fast
// it is made, and text this repetitive compresses well at any level.
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kLevel = 1;
constexpr int kMemoryLevel = 8;

}  // namespace

GzipEncoder::GzipEncoder() {
  if (deflateInit2(&stream_, kLevel, Z_DEFLATED, kGzipWindowBits, kMemoryLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    throw sdk::Error::internal("cannot start gzip compression");
  }
}

GzipEncoder::~GzipEncoder() {
  deflateEnd(&stream_);
}

std::string GzipEncoder::chunk(std::string_view bytes) {
  return deflate_all(bytes, Z_SYNC_FLUSH);
}

std::string GzipEncoder::finish() {
  return deflate_all({}, Z_FINISH);
}

std::string GzipEncoder::deflate_all(std::string_view bytes, int flush) {
  std::string out;
  // zlib does not write through its input pointer.
  stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream_.avail_in = static_cast<uInt>(bytes.size());
  do {
    const std::size_t before = out.size();
    const std::size_t room = deflateBound(&stream_, stream_.avail_in) + 64;
    out.resize(before + room);
    stream_.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    stream_.avail_out = static_cast<uInt>(room);
    const int result = deflate(&stream_, flush);
    if (result == Z_STREAM_ERROR) throw sdk::Error::internal("gzip compression failed");
    out.resize(before + room - stream_.avail_out);
  } while (stream_.avail_out == 0 || stream_.avail_in > 0);
  return out;
}

}  // namespace eventsvc::host
