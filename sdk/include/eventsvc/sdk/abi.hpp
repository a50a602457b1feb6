// The binary contract between the host and a plugin library.
//
// A plugin library exports `eventsvc_plugin_abi`, a function returning the AbiVersion it was
// compiled against. The host reads it before any other symbol, so nothing with a C++ layout
// crosses the boundary until both sides agree on it.
#pragma once

#include <boost/version.hpp>
#include <cstdint>
#include <string>

namespace eventsvc::sdk {

// Major: incompatible interface change. Minor: additions a host of the same or a newer minor
// understands.
inline constexpr std::uint32_t kAbiMajor = 4;
inline constexpr std::uint32_t kAbiMinor = 0;

#define EVENTSVC_SDK_STRINGIFY_(x) #x
#define EVENTSVC_SDK_STRINGIFY(x) EVENTSVC_SDK_STRINGIFY_(x)

#if defined(_GLIBCXX_RELEASE)
#define EVENTSVC_SDK_STDLIB                                                           \
  "libstdc++" EVENTSVC_SDK_STRINGIFY(_GLIBCXX_RELEASE) "-abi" EVENTSVC_SDK_STRINGIFY( \
      _GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define EVENTSVC_SDK_STDLIB "libc++" EVENTSVC_SDK_STRINGIFY(_LIBCPP_VERSION)
#else
#define EVENTSVC_SDK_STDLIB "unknown-stdlib"
#endif

// What must match exactly for C++ objects, exceptions and boost::json values to cross: the
// standard library and its ABI flavour, and the Boost version (boost::json is shared).
inline constexpr const char* kToolchain =
    EVENTSVC_SDK_STDLIB "/boost-" EVENTSVC_SDK_STRINGIFY(BOOST_VERSION);

// Plain data on purpose: it is read before the host trusts the library's C++ layout.
struct AbiVersion {
  std::uint32_t major;
  std::uint32_t minor;
  const char* toolchain;
};

inline constexpr AbiVersion kAbiVersion{kAbiMajor, kAbiMinor, kToolchain};

// Empty when a plugin built against `plugin` can be used by a host built against `host`;
// otherwise a sentence naming both versions, e.g.
// "ABI version mismatch: got 3.0 (libstdc++12-abi1/boost-108100), but expected 2.0 or older minor".
std::string abi_incompatibility(const AbiVersion& plugin, const AbiVersion& host);

}  // namespace eventsvc::sdk
