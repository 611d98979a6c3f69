# Installation of libcoreset as a package, included from src/CMakeLists.txt:
#
#   bin/coreset                             the command (finds the library through $ORIGIN)
#   LIBDIR/libcoreset.so.X.Y.Z, .so.SOVERSION, .so
#   include/coreset/*.hpp                   the public headers (no Eigen, OpenMP or CUDA)
#   LIBDIR/cmake/Coreset/                   find_package(Coreset CONFIG) -> Coreset::coreset
#   LIBDIR/pkgconfig/coreset.pc             pkg-config --cflags --libs coreset
#
# Version policy: 0.x releases may break the API and ABI in any minor release (semantic
# versioning), so while the major version is 0 the SONAME carries MAJOR.MINOR and
# find_package(Coreset 0.2) accepts 0.2.z only (SameMinorVersion); from 1.0 on, the SONAME is
# the major version and any 1.y >= the requested version is accepted (SameMajorVersion).
include(CMakePackageConfigHelpers)

if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(CORESET_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  set(CORESET_VERSION_COMPATIBILITY SameMinorVersion)
else()
  set(CORESET_SOVERSION ${PROJECT_VERSION_MAJOR})
  set(CORESET_VERSION_COMPATIBILITY SameMajorVersion)
endif()
set_target_properties(coreset PROPERTIES SOVERSION ${CORESET_SOVERSION})
# The public headers are C++17; consumers of the target get that requirement.
target_compile_features(coreset PUBLIC cxx_std_17)
# Libraries linked from outside the system folders (the CUDA runtime under /usr/local/cuda) stay
# findable from the installed library.
set_target_properties(coreset PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
# The installed command finds the installed library next to it, whatever the prefix.
file(RELATIVE_PATH _coreset_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set_target_properties(coreset_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_coreset_bin_to_lib}")

set(CORESET_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Coreset)
install(TARGETS coreset EXPORT CoresetTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS coreset_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/coreset DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT CoresetTargets NAMESPACE Coreset:: DESTINATION ${CORESET_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/CoresetConfig.cmake.in
  ${PROJECT_BINARY_DIR}/CoresetConfig.cmake INSTALL_DESTINATION ${CORESET_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/CoresetConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${CORESET_VERSION_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/CoresetConfig.cmake ${PROJECT_BINARY_DIR}/CoresetConfigVersion.cmake
  DESTINATION ${CORESET_CMAKE_DIR})

# pkg-config: paths relative to the .pc file, so `cmake --install --prefix P` relocates it.
set(_coreset_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH CORESET_PC_PREFIX_FROM_PCFILEDIR ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" CORESET_PC_PREFIX_FROM_PCFILEDIR "${CORESET_PC_PREFIX_FROM_PCFILEDIR}")
foreach(_kind INCLUDEDIR LIBDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_kind}}")
    set(CORESET_PC_${_kind} "${CMAKE_INSTALL_${_kind}}")
  else()
    set(CORESET_PC_${_kind} "\${prefix}/${CMAKE_INSTALL_${_kind}}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/coreset.pc.in ${PROJECT_BINARY_DIR}/coreset.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/coreset.pc DESTINATION ${_coreset_pc_dir})
