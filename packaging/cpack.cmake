# `make package` (cpack in the release build directory) makes two Debian packages:
#   eventsvc      the server, its plugins (/usr/lib/eventsvc/plugins), the configuration
#                 (/etc/eventsvc/eventsvc.yaml, a conffile), a hardened systemd unit, and the
#                 maintainer scripts that make the `eventsvc` system user and /var/lib/eventsvc;
#   eventsvc-sdk  headers, the CMake package and eventsvc_add_plugin() for plugin authors.
# docs/operators.md#the-debian-package says how to install, run and purge them.

# The packaged configuration is the embedded default with the data in /var/lib/eventsvc.
file(READ ${CMAKE_SOURCE_DIR}/config/eventsvc.yaml EVENTSVC_DEFAULT_CONFIG)
string(REPLACE "\ndata_dir: var/data\n" "\ndata_dir: /var/lib/eventsvc\n" EVENTSVC_PACKAGED_CONFIG
       "${EVENTSVC_DEFAULT_CONFIG}")
if(EVENTSVC_PACKAGED_CONFIG STREQUAL EVENTSVC_DEFAULT_CONFIG)
  message(FATAL_ERROR "config/eventsvc.yaml no longer says `data_dir: var/data`: update packaging")
endif()
file(WRITE ${CMAKE_BINARY_DIR}/packaging/eventsvc.yaml "${EVENTSVC_PACKAGED_CONFIG}")
# Files outside the prefix are their own component, packaged with the server: installing the
# server into a prefix (`cmake --install --component server`) must not write into /etc.
install(FILES ${CMAKE_BINARY_DIR}/packaging/eventsvc.yaml
  DESTINATION /etc/eventsvc COMPONENT system)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/eventsvc.service
  DESTINATION /lib/systemd/system COMPONENT system)

# Each package's copyright and changelog, as Debian policy asks.
configure_file(${CMAKE_SOURCE_DIR}/packaging/debian/changelog.in
  ${CMAKE_BINARY_DIR}/packaging/changelog @ONLY)
execute_process(COMMAND gzip -9n -c ${CMAKE_BINARY_DIR}/packaging/changelog
  OUTPUT_FILE ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
foreach(component IN ITEMS server sdk)
  set(package eventsvc)
  if(component STREQUAL "sdk")
    set(package eventsvc-sdk)
  endif()
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/debian/copyright
                ${CMAKE_BINARY_DIR}/packaging/changelog.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component})
endforeach()
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/scale-out.md
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/eventsvc COMPONENT server)
# One server of a cluster on PostgreSQL and Redis (docs/scale-out.md).
install(FILES ${CMAKE_SOURCE_DIR}/config/cluster.example.yaml
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/eventsvc/examples COMPONENT server)

set(CPACK_PACKAGE_NAME eventsvc)
set(CPACK_PACKAGE_VENDOR "eventsvc")
set(CPACK_PACKAGE_CONTACT "eventsvc maintainers <maintainers@eventsvc.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL server system sdk)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_SERVER_PACKAGE_NAME eventsvc)
set(CPACK_DEBIAN_SDK_PACKAGE_NAME eventsvc-sdk)
set(CPACK_DEBIAN_SDK_PACKAGE_SECTION libdevel)
# The first line is the synopsis. An empty summary keeps CPack from putting the project's
# description first in both packages.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
set(CPACK_DEBIAN_SERVER_DESCRIPTION "Event ingestion and query service
eventsvc ingests arbitrary JSON events over an authenticated HTTPS API,
durably and idempotently, and makes them searchable, queryable and
analysable, down to a token-budgeted Context Pack for AI agents. Auth,
storage (RocksDB), aggregation operators, Context Pack modes and embedders
are plugins chosen in /etc/eventsvc/eventsvc.yaml. The eventsvc.service unit
runs it as the eventsvc system user with its data in /var/lib/eventsvc.")
set(CPACK_DEBIAN_SDK_DESCRIPTION "Plugin SDK for eventsvc
Headers, the toolkit library and the CMake package (find_package(eventsvc-sdk))
to build eventsvc plugins outside its source tree: auth, storage, aggregation
operators, Context Pack modes, embedders and audit sinks, which the server
loads from shared libraries.")
# The libraries the server is linked with, by the packages Debian 12 ships them in.
set(CPACK_DEBIAN_SERVER_PACKAGE_DEPENDS
  "libc6, libstdc++6, libgcc-s1, libpoconetssl80, libpocoutil80, libpoconet80, libpocoredis80, libpococrypto80, libpq5, libpocofoundation80, librocksdb7.8, libyaml-cpp0.7, libboost-json1.81.0, libssl3, libprometheus-cpp-core1.0, libjemalloc2, zlib1g, adduser, init-system-helpers (>= 1.54~)")
set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS
  "eventsvc (= ${PROJECT_VERSION}), cmake, g++, libboost-json1.81-dev, libboost1.81-dev, libpoco-dev, libssl-dev")
set(CPACK_DEBIAN_SERVER_PACKAGE_CONTROL_EXTRA
  ${CMAKE_SOURCE_DIR}/packaging/debian/postinst
  ${CMAKE_SOURCE_DIR}/packaging/debian/prerm
  ${CMAKE_SOURCE_DIR}/packaging/debian/postrm
  ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles
  ${CMAKE_SOURCE_DIR}/packaging/debian/triggers)
# libeventsvc-sdk.so.0 is in the server package (the binary and every plugin link it).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Installed files find their libraries where Debian puts them, not through a run path (which
# only the relocatable `cmake --install` tree needs).
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/packaging/strip_run_paths.cmake)
set(CPACK_GENERATOR DEB)
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_BINARY_DIR}/packages)
include(CPack)
cpack_add_component_group(server)
cpack_add_component_group(sdk)
cpack_add_component(server GROUP server)
cpack_add_component(system GROUP server)
cpack_add_component(sdk GROUP sdk)
