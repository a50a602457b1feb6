# eventsvc_add_plugin(HEADER <file> REGISTRATION <file> [KIND <kind>] [SOURCES <files...>]
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
# The kind is the folder the plugin's folder sits in (plugins/<kind>/<name>, as in the eventsvc
# tree); a plugin kept elsewhere passes KIND. Either way the registration file is compiled with it
# and does not compile when the plugin class derives from another kind's interface. TESTS builds
# `<kind>_<name>_test` from those GoogleTest files linked with the plugin's logic and registers it
# with CTest (label `unit`); TEST_DEFINITIONS are its compile definitions.

# eventsvc_sdk_headers_hash(<out-var>)
#
# The first 16 hex digits of SHA-256 over the name and contents of every header of
# ${EVENTSVC_SDK_INCLUDE_DIR}/eventsvc/sdk: the SDK headers a plugin or the host is built against,
# which EVENTSVC_SDK_HEADERS_HASH carries into their AbiVersion (abi.hpp). Editing, adding or
# removing a header makes CMake configure again, so the hash follows the headers without anyone
# remembering to. Worked out once per configuration, whatever the number of plugins.
function(eventsvc_sdk_headers_hash out)
  if(NOT EVENTSVC_SDK_INCLUDE_DIR)
    message(FATAL_ERROR "eventsvc_sdk_headers_hash: EVENTSVC_SDK_INCLUDE_DIR is not set")
  endif()
  get_property(known GLOBAL PROPERTY EVENTSVC_SDK_HEADERS_HASH_OF_${EVENTSVC_SDK_INCLUDE_DIR})
  if(known)
    set(${out} ${known} PARENT_SCOPE)
    return()
  endif()
  file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${EVENTSVC_SDK_INCLUDE_DIR}
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

# eventsvc_plugin_kind(<out-var> <folder>): the kind of the plugin in <folder>, the name of the
# folder it sits in when that is a kind; empty otherwise.
function(eventsvc_plugin_kind out folder)
  get_filename_component(parent ${folder} DIRECTORY)
  get_filename_component(kind ${parent} NAME)
  set(kinds auth storage aggregation context embedder audit limits log)  # sdk::kind_name
  if(NOT kind IN_LIST kinds)
    set(kind "")
  endif()
  set(${out} ${kind} PARENT_SCOPE)
endfunction()

function(eventsvc_add_plugin)
  cmake_parse_arguments(ARG "" "KIND;HEADER;REGISTRATION"
                        "SOURCES;LIBRARIES;TESTS;TEST_DEFINITIONS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "eventsvc_add_plugin: unexpected ${ARG_UNPARSED_ARGUMENTS} (the plugin's "
                        "name is its kName in HEADER)")
  endif()
  if(NOT ARG_HEADER OR NOT ARG_REGISTRATION)
    message(FATAL_ERROR "eventsvc_add_plugin: HEADER (the file declaring kName) and REGISTRATION "
                        "are required")
  endif()
  eventsvc_plugin_name(name ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_HEADER})
  set(kind ${ARG_KIND})
  if(NOT kind)
    eventsvc_plugin_kind(kind ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  if(NOT kind)
    message(FATAL_ERROR "eventsvc_add_plugin: ${CMAKE_CURRENT_SOURCE_DIR} is not in a folder "
                        "named after a kind (plugins/<kind>/<name>): pass KIND")
  endif()
  set(target eventsvc-${kind}-${name})

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
  target_compile_definitions(${target} PRIVATE EVENTSVC_SDK_HEADERS_HASH="${headers_hash}"
                                                EVENTSVC_PLUGIN_KIND="${kind}")
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
    set(test ${kind}_${name}_test)
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
