# eventsvc_add_plugin(KIND <kind> HEADER <file> REGISTRATION <file> [SOURCES <files...>]
#                     [LIBRARIES <targets...>] [TESTS <files...>] [TEST_DEFINITIONS <defs...>])
#
# Builds a plugin the host can load: the MODULE library `libeventsvc-<kind>-<name>.so` made of the
# registration file (the one EVENTSVC_PLUGIN line, built with the SDK headers' hash) and a library
# `eventsvc-<kind>-<name>-impl` holding the logic (static; header-only when there are no
# SOURCES), which the plugin's own tests link directly. Symbols stay hidden except the two the
# registration macro exports.
#
# The name is the one the plugin class declares in HEADER (`static constexpr std::string_view
# kName = "sum";`): written once, in C++, it names the manifest, the op or mode and the library.
# (The older form passes the name first, eventsvc_add_plugin(sum KIND ...); with HEADER as well,
# the two must agree.) TESTS builds `<kind>_<name>_test` from those GoogleTest files linked with
# the plugin's logic and registers it with CTest (label `unit`); TEST_DEFINITIONS are its compile
# definitions.

# eventsvc_sdk_headers_hash(<out-var>)
#
# The first 16 hex digits of SHA-256 over the name and contents of every header of
# ${EVENTSVC_SDK_INCLUDE_DIR}/eventsvc/sdk: the SDK headers a plugin or the host is built against,
# which EVENTSVC_SDK_HEADERS_HASH carries into their AbiVersion (abi.hpp). Editing a header makes
# CMake configure again, so the hash follows the headers without anyone remembering to. Worked out
# once per configuration, whatever the number of plugins.
function(eventsvc_sdk_headers_hash out)
  if(NOT EVENTSVC_SDK_INCLUDE_DIR)
    message(FATAL_ERROR "eventsvc_sdk_headers_hash: EVENTSVC_SDK_INCLUDE_DIR is not set")
  endif()
  get_property(known GLOBAL PROPERTY EVENTSVC_SDK_HEADERS_HASH_OF_${EVENTSVC_SDK_INCLUDE_DIR})
  if(known)
    set(${out} ${known} PARENT_SCOPE)
    return()
  endif()
  file(GLOB headers RELATIVE ${EVENTSVC_SDK_INCLUDE_DIR}
       ${EVENTSVC_SDK_INCLUDE_DIR}/eventsvc/sdk/*.hpp)
  list(SORT headers)
  set(listing "")
  foreach(header IN LISTS headers)
    file(SHA256 ${EVENTSVC_SDK_INCLUDE_DIR}/${header} digest)
    string(APPEND listing "${header} ${digest}\n")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                 ${EVENTSVC_SDK_INCLUDE_DIR}/${header})
  endforeach()
  string(SHA256 hash "${listing}")
  string(SUBSTRING "${hash}" 0 16 hash)
  set_property(GLOBAL PROPERTY EVENTSVC_SDK_HEADERS_HASH_OF_${EVENTSVC_SDK_INCLUDE_DIR} ${hash})
  set(${out} ${hash} PARENT_SCOPE)
endfunction()

# eventsvc_plugin_name(<out-var> <header>): the kName a plugin class declares in <header>.
function(eventsvc_plugin_name out header)
  file(STRINGS ${header} declared REGEX "kName = \"[^\"]+\"")
  string(REGEX MATCH "kName = \"([^\"]+)\"" found "${declared}")
  if(NOT found)
    message(FATAL_ERROR
            "${header} declares no `static constexpr std::string_view kName = \"...\";`")
  endif()
  set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

function(eventsvc_add_plugin)
  set(keywords KIND HEADER REGISTRATION SOURCES LIBRARIES TESTS TEST_DEFINITIONS)
  set(args ${ARGN})
  set(name "")
  if(args)
    list(GET args 0 first)
    if(NOT first IN_LIST keywords)
      set(name ${first})
      list(REMOVE_AT args 0)
    endif()
  endif()
  cmake_parse_arguments(ARG "" "KIND;HEADER;REGISTRATION"
                        "SOURCES;LIBRARIES;TESTS;TEST_DEFINITIONS" ${args})
  if(NOT ARG_KIND OR NOT ARG_REGISTRATION)
    message(FATAL_ERROR "eventsvc_add_plugin: KIND and REGISTRATION are required")
  endif()
  if(ARG_HEADER)
    eventsvc_plugin_name(declared ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_HEADER})
    if(name AND NOT name STREQUAL declared)
      message(FATAL_ERROR "eventsvc_add_plugin: named ${name}, but ${ARG_HEADER} says ${declared}")
    endif()
    set(name ${declared})
  endif()
  if(NOT name)
    message(FATAL_ERROR "eventsvc_add_plugin: HEADER (the file declaring kName) is required")
  endif()
  set(target eventsvc-${ARG_KIND}-${name})

  if(ARG_SOURCES)
    add_library(${target}-impl STATIC ${ARG_SOURCES})
    target_link_libraries(${target}-impl PUBLIC eventsvc::sdk ${ARG_LIBRARIES})
    target_include_directories(${target}-impl PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
    set_target_properties(${target}-impl PROPERTIES
      POSITION_INDEPENDENT_CODE ON
      CXX_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON)
    target_compile_options(${target}-impl PRIVATE -Wall -Wextra -Wpedantic)
  else()  # a plugin written entirely in its header (an operator made from an SDK template)
    add_library(${target}-impl INTERFACE)
    target_link_libraries(${target}-impl INTERFACE eventsvc::sdk ${ARG_LIBRARIES})
    target_include_directories(${target}-impl INTERFACE ${CMAKE_CURRENT_SOURCE_DIR})
  endif()

  add_library(${target} MODULE ${ARG_REGISTRATION})
  target_link_libraries(${target} PRIVATE ${target}-impl)
  # The registration file reports the ABI: the toolchain and the hash of the SDK headers.
  eventsvc_sdk_headers_hash(headers_hash)
  target_compile_definitions(${target} PRIVATE EVENTSVC_SDK_HEADERS_HASH="${headers_hash}")
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(DEFINED EVENTSVC_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${EVENTSVC_PLUGIN_OUTPUT_DIR})
  endif()
  if(DEFINED EVENTSVC_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${EVENTSVC_PLUGIN_INSTALL_DIR} COMPONENT server)
  endif()

  if(ARG_TESTS)
    set(test ${ARG_KIND}_${name}_test)
    if(DEFINED EVENTSVC_BUILD_TESTS)  # in the eventsvc tree: its option, test support, labels
      if(EVENTSVC_BUILD_TESTS)
        eventsvc_add_gtest(${test} SOURCES ${ARG_TESTS} LIBRARIES ${target}-impl)
      endif()
    else()
      find_package(GTest CONFIG REQUIRED)
      enable_testing()
      add_executable(${test} ${ARG_TESTS})
      target_link_libraries(${test} PRIVATE ${target}-impl GTest::gtest_main)
      add_test(NAME ${test} COMMAND ${test})
      set_tests_properties(${test} PROPERTIES LABELS unit)
    endif()
    if(TARGET ${test} AND ARG_TEST_DEFINITIONS)
      target_compile_definitions(${test} PRIVATE ${ARG_TEST_DEFINITIONS})
    endif()
  endif()
  set(EVENTSVC_LAST_PLUGIN_TARGET ${target} PARENT_SCOPE)
endfunction()
