# See CMakeLists.txt: install the SDK, build the example plugin against it, load it.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  set(LAST_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --component server --prefix ${prefix})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --component sdk --prefix ${prefix})
# Installing into a prefix writes nothing outside it (/etc and the systemd unit are the package's).
foreach(component server sdk)
  file(STRINGS ${BUILD_DIR}/install_manifest_${component}.txt installed)
  foreach(path IN LISTS installed)
    if(NOT path MATCHES "^${prefix}/")
      message(FATAL_ERROR "installing the ${component} component wrote ${path}, outside ${prefix}")
    endif()
  endforeach()
endforeach()
if(NOT EXISTS ${prefix}/lib/cmake/eventsvc-sdk/eventsvc-sdkConfig.cmake)
  message(FATAL_ERROR "the SDK package config was not installed")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
if(NOT EXISTS ${WORK_DIR}/build/libeventsvc-aggregation-range.so)
  message(FATAL_ERROR "the plugin library was not built")
endif()

file(WRITE ${WORK_DIR}/eventsvc.yaml "plugin_dirs: [${WORK_DIR}/build]\nplugins:\n  apikey:\n    library: eventsvc-auth-apikey\n  rocksdb:\n    library: eventsvc-storage-rocksdb\n  range:\n    library: eventsvc-aggregation-range\n")
# The installed binary finds its own plugins next to it, and the example through plugin_dirs.
set(EVENTSVC ${prefix}/bin/eventsvc)
run(${EVENTSVC} plugins --json --config ${WORK_DIR}/eventsvc.yaml --data-dir ${WORK_DIR}/data)
string(FIND "${LAST_OUTPUT}" "\"library\":\"eventsvc-aggregation-range\"" found_library)
string(FIND "${LAST_OUTPUT}" "\"kind\":\"aggregation\",\"version\":\"1.0.0\"" found_manifest)
if(found_library EQUAL -1 OR found_manifest EQUAL -1)
  message(FATAL_ERROR "eventsvc plugins did not list the out-of-tree plugin:\n${LAST_OUTPUT}")
endif()
run(${EVENTSVC} check-config --config ${WORK_DIR}/eventsvc.yaml --data-dir ${WORK_DIR}/data)
message(STATUS "out-of-tree plugin built against the installed SDK and loaded")

# The toolkit is not part of the ABI: the same plugin built against an edited toolkit header (one
# comment more in the helper it derives from) still loads into the server built from the originals.
file(APPEND ${prefix}/include/eventsvc/toolkit/aggregation_helper.hpp
     "\n// an edit after the server was built\n")
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/toolkit_edited -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/toolkit_edited)
file(WRITE ${WORK_DIR}/toolkit_edited.yaml "plugin_dirs: [${WORK_DIR}/toolkit_edited]\nplugins:\n  apikey:\n    library: eventsvc-auth-apikey\n  rocksdb:\n    library: eventsvc-storage-rocksdb\n  range:\n    library: eventsvc-aggregation-range\n")
run(${EVENTSVC} check-config --config ${WORK_DIR}/toolkit_edited.yaml --data-dir ${WORK_DIR}/data)
message(STATUS "the same plugin built against an edited toolkit header loads")

# Any change to a plugin-facing header changes the ABI: the same plugin built against an edited
# copy of the headers (one comment more) is refused by the server built from the originals.
file(APPEND ${prefix}/include/eventsvc/sdk/record.hpp "\n// an edit after the server was built\n")
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/edited -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/edited)
file(WRITE ${WORK_DIR}/edited.yaml "plugin_dirs: [${WORK_DIR}/edited]\nplugins:\n  apikey:\n    library: eventsvc-auth-apikey\n  rocksdb:\n    library: eventsvc-storage-rocksdb\n  range:\n    library: eventsvc-aggregation-range\n")
execute_process(COMMAND ${EVENTSVC} check-config --config ${WORK_DIR}/edited.yaml
                        --data-dir ${WORK_DIR}/data
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCH "ABI version mismatch: got 5\\.0 \\([^)]*/sdk-([0-9a-f]+)\\), but expected 5\\.0 \\([^)]*/sdk-([0-9a-f]+)\\)"
       mismatch "${err}")
if(rc EQUAL 0 OR NOT mismatch OR CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2)
  message(FATAL_ERROR "a plugin built against an edited header was not refused (exit ${rc}):\n${out}\n${err}")
endif()
message(STATUS "the same plugin built against an edited header is refused: sdk-${CMAKE_MATCH_1} is not sdk-${CMAKE_MATCH_2}")
