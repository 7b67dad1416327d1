# The Python module is optional: built when CCSIM_PYTHON is on and Debian's pybind11-dev is installed,
# skipped (with a note) otherwise, so the C++ build needs nothing more. Not under the sanitizers: an
# instrumented module would need the runtime preloaded into python3.
set(CCSIM_WITH_PYTHON OFF)
if(CCSIM_PYTHON AND NOT CCSIM_SANITIZE AND NOT CCSIM_FUZZ)
  # Debian's interpreter, the one python3-pybind11 and python3-pytest belong to (not a pyenv shim on PATH).
  if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python_EXECUTABLE /usr/bin/python3)
  endif()
  set(PYBIND11_FINDPYTHON ON)
  find_package(Python COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(pybind11_FOUND)
    set(CCSIM_WITH_PYTHON ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON) # the static libraries are linked into a shared module
  else()
    message(STATUS "ccsim: Python module not built (install pybind11-dev and python3-dev, or see scripts/setup.sh)")
  endif()
endif()
