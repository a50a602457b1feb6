#include "eventsvc/toolkit/state_bytes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::toolkit {
namespace {

using namespace eventsvc::sdk;

TEST(StateBytes, ReadsBackWhatWasWritten) {
  StateWriter out;
  out.u64(0);
  out.u64(std::numeric_limits<std::uint64_t>::max());
  out.i64(-1795336200000);
  out.f64(0.1);
  out.f64(-0.0);
  out.f64(std::numeric_limits<double>::infinity());
  out.boolean(true);
  out.text("");
  out.text(std::string("a\0b é", 6));
  const std::string bytes = out.take();
  EXPECT_EQ(bytes.size(), 8 * 6 + 1 + 8 + 8 + 6U);
  StateReader in(bytes);
  EXPECT_EQ(in.u64(), 0U);
  EXPECT_EQ(in.u64(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(in.i64(), -1795336200000);
  EXPECT_EQ(in.f64(), 0.1);
  const double negative_zero = in.f64();
  EXPECT_TRUE(negative_zero == 0 && std::signbit(negative_zero));
  EXPECT_EQ(in.f64(), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(in.boolean());
  EXPECT_EQ(in.text(), "");
  EXPECT_EQ(in.text(), std::string("a\0b é", 6));
  EXPECT_NO_THROW(in.expect_end());
}

TEST(StateBytes, NumbersAreLittleEndianWhateverTheMachine) {
  StateWriter out;
  out.u64(0x0102030405060708ULL);
  EXPECT_EQ(out.take(), std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
}

TEST(StateBytes, DamagedBytesAreRefusedNotReadPast) {
  StateWriter out;
  out.text("four");
  const std::string bytes = out.take();
  StateReader truncated(std::string_view(bytes).substr(0, 10));
  try {
    truncated.text();
    ADD_FAILURE() << "read past the end";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), 500);
    EXPECT_EQ(error.message(), "aggregation state is damaged: wants 4 bytes at offset 8 of 10");
  }
  StateWriter huge;
  huge.u64(std::numeric_limits<std::uint64_t>::max());  // a length no buffer has
  const std::string length_only = huge.take();
  EXPECT_THROW(StateReader(length_only).text(), Error);
  EXPECT_THROW(StateReader(std::string("\x02", 1)).boolean(), Error);
  StateReader left_over(bytes);
  left_over.u64();
  EXPECT_THROW(left_over.expect_end(), Error);
}

}  // namespace
}  // namespace eventsvc::toolkit
