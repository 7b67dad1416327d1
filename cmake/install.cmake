# `cmake --install build --prefix P`: P/bin/ccsim, the shipped data in P/share/ccsim (found by the binary
# relative to itself, sim/core/data_dir.cpp), headers in P/include/ccsim/sim/<concern>/, static libraries
# and P/lib/cmake/ccsim/ccsimConfig.cmake for find_package(ccsim) + ccsim::ccsim. The Python module installs
# itself (python/CMakeLists.txt).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CCSIM_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/ccsim)
set(CCSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ccsim)

install(TARGETS ccsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET ccsim_sweep_mpi) # dlopened by the binary under mpirun (sim/cli/mpi/sweep_mpi.cpp looks here)
  install(TARGETS ccsim_sweep_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/ccsim)
endif()
if(TARGET ccsim_mpi) # the dynamic build a static ccsim hands `mpirun ... ccsim sweep` to (sweep_mpi_exec.cpp)
  install(TARGETS ccsim_mpi RUNTIME DESTINATION ${CMAKE_INSTALL_LIBDIR}/ccsim)
endif()

get_property(ccsim_libraries GLOBAL PROPERTY CCSIM_LIBRARIES)
install(TARGETS ${ccsim_libraries} ccsim_all EXPORT ccsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ccsim)
# Headers keep the sim/ layout, so an installed #include "sim/model/registry.hpp" reads as in the tree.
# The command line's headers stay private (its flags are the interface, not its C++).
install(DIRECTORY sim/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ccsim/sim
        FILES_MATCHING PATTERN "*.hpp" PATTERN "cli" EXCLUDE)
install(EXPORT ccsimTargets NAMESPACE ccsim:: DESTINATION ${CCSIM_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/ccsimConfig.cmake.in ${PROJECT_BINARY_DIR}/ccsimConfig.cmake
                              INSTALL_DESTINATION ${CCSIM_INSTALL_CMAKEDIR} PATH_VARS CCSIM_INSTALL_DATADIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ccsimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ccsimConfig.cmake ${PROJECT_BINARY_DIR}/ccsimConfigVersion.cmake
        DESTINATION ${CCSIM_INSTALL_CMAKEDIR})

# The data the library reads at run time; scripts/plot_*.py for `compare --plot` and the docs' plots.
install(DIRECTORY topologies models scenarios DESTINATION ${CCSIM_INSTALL_DATADIR})
install(FILES scripts/plot_compare.py scripts/plot_sweep.py scripts/plot_timeline.py
        DESTINATION ${CCSIM_INSTALL_DATADIR}/scripts
        PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
