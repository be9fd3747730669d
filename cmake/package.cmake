# `cpack -G DEB` (from the build directory): one Debian package with the
# whole install tree under /usr. Its Depends are the shared libraries
# libroce.so and the tools link (dpkg-shlibdeps), and the -dev packages of
# roce.pc's Requires.private: without them `pkg-config --cflags roce`
# fails and libroce.a cannot be linked. tests/scripts/deb_package.sh
# builds it and looks inside.
set(ROCE_PACKAGE_CONTACT "roce-nic maintainers <maintainers@roce-nic.invalid>"
  CACHE STRING "Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME roce-nic)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${ROCE_PACKAGE_CONTACT})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "RoCE v2 NIC engine: library, headers, tools and a model of the hardware")
set(CPACK_PACKAGE_DESCRIPTION
  "A RoCE v2 (RDMA over Converged Ethernet) NIC written the way an FPGA implements one: RC, UC and UD transports, a verbs-like API, the AXI-Lite register model and its tools (roce-perf, roce-pingpong, roce-rping, rocectl, roced). libroce.so and libroce.a with headers, pkg-config and CMake files.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# a shlibs file and the ldconfig trigger for libroce.so.MAJOR.MINOR
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
set(ROCE_DEB_DEV "libisal-dev, libpcap-dev, libssl-dev")
if(TARGET PkgConfig::ROCE_XDP)
  string(APPEND ROCE_DEB_DEV ", libxdp-dev, libbpf-dev")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${ROCE_DEB_DEV}, pkg-config")
# nothing of the build tree but what install() names
set(CPACK_SOURCE_IGNORE_FILES "/build.*/;/\\\\.git/")
include(CPack)
