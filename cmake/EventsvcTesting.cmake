# eventsvc_add_gtest(<name> SOURCES <files...> [LIBRARIES <targets...>] [LABELS <labels...>])
#
# One GoogleTest binary = one ctest test. Unlabelled tests are fast unit tests; `integration`
# (starts the real binary over HTTPS), `fault` (kills it) and `cluster` (several servers sharing
# real backing services) are the slower groups:
#   ctest --preset unit        unit tests only
#   ctest -L integration       integration tests only
function(eventsvc_add_gtest name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBRARIES;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBRARIES} eventsvc_test_support GTest::gtest_main
                        eventsvc_warnings)
  add_test(NAME ${name} COMMAND ${name})
  set(labels unit)
  if(ARG_LABELS)
    set(labels ${ARG_LABELS})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${labels}")
  # Tests that talk to the real server record every answer of the public API for the contract
  # test (tests/contract), which checks them against docs/openapi.yaml after they have all run.
  if(labels MATCHES "integration|fault|cluster")
    set_tests_properties(${name} PROPERTIES
      ENVIRONMENT "EVENTSVC_CONTRACT_LOG=${EVENTSVC_CONTRACT_LOG_DIR}"
      FIXTURES_REQUIRED api_contract)
  endif()
  if(ARG_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  endif()
endfunction()
