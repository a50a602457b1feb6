# Every plugin's name is written once in its sources: in its class's kName, from which the
# manifest, the op or mode and the library name are taken. Any other spelling of the name as a
# string literal (or as the name of its library in CMake) fails this test. Its kind is written
# nowhere: the folder it sits in names the library, the interface its class derives from the
# manifest (the build checks they agree); an in-tree plugin that passes KIND fails this test.
#   cmake -DSOURCE_DIR=<eventsvc source> -P plugin_names_test.cmake
cmake_minimum_required(VERSION 3.25)
include(${SOURCE_DIR}/sdk/cmake/EventsvcPlugin.cmake)  # eventsvc_plugin_name(), as the build
file(GLOB plugin_dirs LIST_DIRECTORIES true ${SOURCE_DIR}/plugins/*/*)
list(APPEND plugin_dirs ${SOURCE_DIR}/examples/out-of-tree-plugin)
set(checked 0)
foreach(dir IN LISTS plugin_dirs)
  if(NOT IS_DIRECTORY ${dir})
    continue()
  endif()
  # The name the build gives the plugin: the kName of the header its CMakeLists names.
  file(READ ${dir}/CMakeLists.txt cmake)
  if(NOT cmake MATCHES "HEADER ([^ \n)]+)")
    message(FATAL_ERROR "${dir}/CMakeLists.txt: eventsvc_add_plugin names no HEADER")
  endif()
  eventsvc_plugin_name(name ${dir}/${CMAKE_MATCH_1})
  file(GLOB_RECURSE sources ${dir}/*.cpp ${dir}/*.hpp)  # a plugin's own folders, not its tests
  list(FILTER sources EXCLUDE REGEX "/tests/")
  set(spellings 0)
  set(where "")
  foreach(source IN LISTS sources)
    file(READ ${source} text)
    if(text MATCHES "PluginKind::")
      message(FATAL_ERROR "${source} names a kind: its interface's kKind is the plugin's")
    endif()
    # A JSON member of the same spelling (context["documents"]) is not the plugin's name.
    string(REGEX MATCHALL "[^[]\"${name}\"" quoted "${text}")
    list(LENGTH quoted count)
    math(EXPR spellings "${spellings} + ${count}")
    if(count GREATER 0)
      set(where "${where} ${source}")
    endif()
  endforeach()
  if(NOT spellings EQUAL 1)
    message(FATAL_ERROR "${dir}: the name \"${name}\" is written ${spellings} times (${where})")
  endif()
  eventsvc_plugin_kind(kind ${dir})
  if(kind AND cmake MATCHES "KIND ")
    message(FATAL_ERROR "${dir}/CMakeLists.txt passes KIND: the folder ${kind} already says it")
  endif()

  math(EXPR checked "${checked} + 1")
endforeach()
message(STATUS "${checked} plugins each name themselves once")
