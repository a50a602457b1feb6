# `cpack -G DEB` in a build directory makes two packages: eventsvc (server, plugins, config,
# systemd unit) and eventsvc-sdk (headers, libeventsvc-sdk, CMake package for plugin authors).
# The default config as a starting point: copy it to /etc/eventsvc/eventsvc.yaml and edit.
install(FILES ${CMAKE_SOURCE_DIR}/config/eventsvc.yaml
  DESTINATION ${CMAKE_INSTALL_DATADIR}/eventsvc COMPONENT server)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/eventsvc.service
  DESTINATION lib/systemd/system COMPONENT server)

set(CPACK_PACKAGE_NAME eventsvc)
set(CPACK_PACKAGE_VENDOR "eventsvc")
set(CPACK_PACKAGE_CONTACT "eventsvc maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL server sdk)
set(CPACK_DEBIAN_SERVER_PACKAGE_NAME eventsvc)
set(CPACK_DEBIAN_SDK_PACKAGE_NAME eventsvc-sdk)
set(CPACK_DEBIAN_SERVER_PACKAGE_DEPENDS
  "libpoconetssl80, libpocoutil80, libpoconet80, libpococrypto80, libpocofoundation80, librocksdb7.8, libyaml-cpp0.7, libboost-json1.81.0, libssl3, libprometheus-cpp-core1.0")
set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS "eventsvc, libboost-json1.81-dev, libboost1.81-dev")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_GENERATOR DEB)
include(CPack)
