# ctest: the include rules the layers' compile-time views cannot see (cmake/CoresetLayers.cmake).
# A quoted include is looked up next to the including file first, so "../models/model.hpp" from
# src/solvers would reach around the views: no include may climb with "..". And the command is a
# client of the public API: src/cli includes only <coreset/...> and its own cli/ headers.
# Run as: cmake -DSOURCE_DIR=<repository root> -P check_includes.cmake
file(GLOB_RECURSE files "${SOURCE_DIR}/src/*.?pp" "${SOURCE_DIR}/src/*.cu" "${SOURCE_DIR}/kernels/*")
set(problems "")
foreach(file IN LISTS files)
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  file(RELATIVE_PATH where "${SOURCE_DIR}" "${file}")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]*)[\">].*$" "\\1" included "${line}")
    if(included MATCHES "(^|/)\\.\\.(/|$)")
      list(APPEND problems "${where}: '${included}' climbs out of its folder; name the layer instead")
    endif()
    if(where MATCHES "^src/cli/" AND line MATCHES "\"" AND NOT included MATCHES "^(coreset|cli)/")
      list(APPEND problems "${where}: '${included}' is not public API (<coreset/...>) nor cli/")
    endif()
  endforeach()
endforeach()
list(LENGTH files count)
if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "include rules broken:\n  ${text}")
endif()
message(STATUS "include rules hold in ${count} files")
