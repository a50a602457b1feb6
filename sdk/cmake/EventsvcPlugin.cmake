# eventsvc_add_plugin(<name> KIND <kind> REGISTRATION <file> SOURCES <files...>
#                     [LIBRARIES <targets...>])
#
# Builds a plugin the host can load: the MODULE library `libeventsvc-<kind>-<name>.so` made of the
# registration file (the one EVENTSVC_PLUGIN line, built with the SDK headers' hash) and a static
# library
# `eventsvc-<kind>-<name>-impl` holding the logic, which the plugin's own tests link directly.
# Symbols stay hidden except the two the registration macro exports.
# eventsvc_sdk_headers_hash(<out-var>)
#
# The first 16 hex digits of SHA-256 over the name and contents of every header of
# ${EVENTSVC_SDK_INCLUDE_DIR}/eventsvc/sdk: the SDK headers a plugin or the host is built against,
# which EVENTSVC_SDK_HEADERS_HASH carries into their AbiVersion (abi.hpp). Editing a header makes
# CMake configure again, so the hash follows the headers without anyone remembering to.
function(eventsvc_sdk_headers_hash out)
  if(NOT EVENTSVC_SDK_INCLUDE_DIR)
    message(FATAL_ERROR "eventsvc_sdk_headers_hash: EVENTSVC_SDK_INCLUDE_DIR is not set")
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
  set(${out} ${hash} PARENT_SCOPE)
endfunction()

function(eventsvc_add_plugin name)
  cmake_parse_arguments(ARG "" "KIND;REGISTRATION" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_KIND OR NOT ARG_REGISTRATION)
    message(FATAL_ERROR "eventsvc_add_plugin(${name}): KIND and REGISTRATION are required")
  endif()
  set(target eventsvc-${ARG_KIND}-${name})

  add_library(${target}-impl STATIC ${ARG_SOURCES})
  target_link_libraries(${target}-impl PUBLIC eventsvc::sdk ${ARG_LIBRARIES})
  target_include_directories(${target}-impl PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  set_target_properties(${target}-impl PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_compile_options(${target}-impl PRIVATE -Wall -Wextra -Wpedantic)

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
  set(EVENTSVC_LAST_PLUGIN_TARGET ${target} PARENT_SCOPE)
endfunction()
