# eventsvc_add_plugin(<name> KIND <kind> REGISTRATION <file> SOURCES <files...>
#                     [LIBRARIES <targets...>])
#
# Builds a plugin the host can load: the MODULE library `libeventsvc-<kind>-<name>.so` made of the
# registration file (the one EVENTSVC_PLUGIN line) and a static library
# `eventsvc-<kind>-<name>-impl` holding the logic, which the plugin's own tests link directly.
# Symbols stay hidden except the two the registration macro exports.
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
