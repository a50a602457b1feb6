#include "eventsvc/toolkit/state_bytes.hpp"

#include <bit>
#include <cstring>

#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

namespace {

[[noreturn]] void damaged(const std::string& what) {
  throw Error::internal("aggregation state is damaged: " + what);
}

}  // namespace

void StateWriter::u64(std::uint64_t value) {
  for (int shift = 0; shift < 64; shift += 8)
    out_.push_back(static_cast<char>((value >> shift) & 0xFFU));
}

void StateWriter::i64(std::int64_t value) {
  u64(static_cast<std::uint64_t>(value));
}

void StateWriter::f64(double value) {
  u64(std::bit_cast<std::uint64_t>(value));
}

void StateWriter::boolean(bool value) {
  out_.push_back(value ? '\1' : '\0');
}

void StateWriter::text(std::string_view value) {
  u64(value.size());
  out_.append(value);
}

std::string_view StateReader::take(std::size_t size) {
  if (size > bytes_.size() - position_) {
    damaged("wants " + std::to_string(size) + " bytes at offset " + std::to_string(position_) +
            " of " + std::to_string(bytes_.size()));
  }
  const std::string_view taken = bytes_.substr(position_, size);
  position_ += size;
  return taken;
}

std::uint64_t StateReader::u64() {
  const std::string_view word = take(8);
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8U) | static_cast<unsigned char>(word[static_cast<std::size_t>(i)]);
  return value;
}

std::int64_t StateReader::i64() {
  return static_cast<std::int64_t>(u64());
}

double StateReader::f64() {
  return std::bit_cast<double>(u64());
}

bool StateReader::boolean() {
  const char byte = take(1)[0];
  if (byte != '\0' && byte != '\1') damaged("a boolean is neither 0 nor 1");
  return byte == '\1';
}

std::string StateReader::text() {
  const std::uint64_t size = u64();
  return std::string(take(size));
}

void StateReader::expect_end() const {
  if (position_ != bytes_.size()) {
    damaged(std::to_string(bytes_.size() - position_) + " bytes left over");
  }
}

}  // namespace eventsvc::toolkit
