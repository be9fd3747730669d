# `cmake --install`: libroce.so and libroce.a, the public headers, roce.pc,
# the CMake package (find_package(roce): roce::roce, roce::roce_static), the
# tools (tools/CMakeLists.txt) and the man pages (man/). docs/install.md
# lists where each goes.
include(CMakePackageConfigHelpers)

set(ROCE_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/roce)

# the static library is roce::roce_static; the shared one roce::roce
set_target_properties(roce PROPERTIES EXPORT_NAME roce_static)
install(TARGETS roce_shared roce EXPORT roceTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT roceTargets NAMESPACE roce:: DESTINATION ${ROCE_CMAKEDIR})
# every file of include/roce is public (sim.svh is the simulators' DPI-C
# package of sim.h)
install(DIRECTORY include/roce DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Compatible versions follow the SONAME (cmake/library.cmake): the same
# MAJOR.MINOR while MAJOR is 0, then the same MAJOR.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ROCE_COMPAT SameMinorVersion)
else()
  set(ROCE_COMPAT SameMajorVersion)
endif()
configure_package_config_file(cmake/roceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/generated/roceConfig.cmake
  INSTALL_DESTINATION ${ROCE_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/generated/roceConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${ROCE_COMPAT})
install(FILES ${PROJECT_BINARY_DIR}/generated/roceConfig.cmake
  ${PROJECT_BINARY_DIR}/generated/roceConfigVersion.cmake
  DESTINATION ${ROCE_CMAKEDIR})

# roce.pc finds its prefix from its own place (${pcfiledir}), so the tree
# works wherever it is installed (cmake --install --prefix, DESTDIR, .deb).
file(RELATIVE_PATH ROCE_PC_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" ROCE_PC_PREFIX "${ROCE_PC_PREFIX}")
set(ROCE_PC_REQUIRES "libisal libpcap libcrypto")
if(TARGET PkgConfig::ROCE_XDP)
  string(APPEND ROCE_PC_REQUIRES " libxdp libbpf")
endif()
configure_file(cmake/roce.pc.in ${PROJECT_BINARY_DIR}/generated/roce.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/generated/roce.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# man pages: section 1 for each tool, roce(7) for the API
file(GLOB ROCE_MAN1 CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/man/*.1)
file(GLOB ROCE_MAN7 CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/man/*.7)
install(FILES ${ROCE_MAN1} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${ROCE_MAN7} DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)
