// The binary contract between the host and a plugin library.
//
// A plugin library exports `eventsvc_plugin_abi`, a function returning the AbiVersion it was
// compiled against. The host reads it before any other symbol, so nothing with a C++ layout
// crosses the boundary until both sides agree on it. They agree when both were built with the
// same standard library and Boost, against the same SDK headers: the build hashes the contents of
// every header of eventsvc/sdk/ into EVENTSVC_SDK_HEADERS_HASH (the SDK's CMake package defines it
// for each plugin's registration file and for the host's loader), so any change to a
// plugin-facing header, even a comment, changes the ABI without anyone bumping a number.
#pragma once

#include <boost/version.hpp>
#include <cstdint>
#include <string>

namespace eventsvc::sdk {

// The layout of AbiVersion below, read from libraries of any age: it changes only with that
// struct. 5: the era of the headers' hash.
inline constexpr std::uint32_t kAbiMajor = 5;
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

// The toolchain and the SDK headers this translation unit is built against, e.g.
// "libstdc++12-abi1/boost-108100/sdk-3f2a9c0d1e4b5a67"; a null pointer (which no host accepts)
// when the build did not hash the headers (a plugin built without the SDK's CMake package).
#if defined(EVENTSVC_SDK_HEADERS_HASH)
#define EVENTSVC_SDK_ABI_ID \
  EVENTSVC_SDK_STDLIB       \
      "/boost-" EVENTSVC_SDK_STRINGIFY(BOOST_VERSION) "/sdk-" EVENTSVC_SDK_HEADERS_HASH
#else
#define EVENTSVC_SDK_ABI_ID nullptr
#endif

// Plain data on purpose: it is read before the host trusts the library's C++ layout.
struct AbiVersion {
  std::uint32_t major;
  std::uint32_t minor;
  const char* toolchain;  // EVENTSVC_SDK_ABI_ID: toolchain and SDK headers
};

// The version of the translation unit it is expanded in (a macro, not a constant: only the
// registration file and the host's loader are built with the headers' hash).
#define EVENTSVC_SDK_ABI_VERSION                                                \
  ::eventsvc::sdk::AbiVersion {                                                 \
    ::eventsvc::sdk::kAbiMajor, ::eventsvc::sdk::kAbiMinor, EVENTSVC_SDK_ABI_ID \
  }

// Empty when a plugin built against `plugin` can be used by a host built against `host`;
// otherwise a sentence naming both versions, e.g. "ABI version mismatch: got 5.0
// (libstdc++12-abi1/boost-108100/sdk-0123456789abcdef), but expected 5.0
// (libstdc++12-abi1/boost-108100/sdk-3f2a9c0d1e4b5a67)".
std::string abi_incompatibility(const AbiVersion& plugin, const AbiVersion& host);

}  // namespace eventsvc::sdk
