# The engine's layers, each an OBJECT library that can include only itself and the layers it
# names (docs/ARCHITECTURE.md draws them). Sources include internal headers as "LAYER/file.hpp"
# from one root; the root a layer compiles against is a folder of the build tree holding links to
# exactly the layers it may see, so an include that points the wrong way is "file not found" at
# compile time, not a review comment. Every header is also compiled on its own in its layer
# (CORESET_CHECK_HEADERS), which catches wrong-way includes in header-only layers such as
# solvers/ and headers that do not include what they use.

option(CORESET_CHECK_HEADERS "Compile every internal header on its own, in its layer" ON)

# Where a layer's files live: kernels/ sits at the top level (the design card), the rest in src/.
function(coreset_layer_dir layer out)
  if(layer STREQUAL "kernels")
    set(${out} "${PROJECT_SOURCE_DIR}/kernels" PARENT_SCOPE)
  else()
    set(${out} "${PROJECT_SOURCE_DIR}/src/${layer}" PARENT_SCOPE)
  endif()
endfunction()

# coreset_layer(NAME SOURCES files... [DEPENDS layers...] [HEADER_CHECKS ON|OFF])
# Defines the object library coreset_NAME. SOURCES are relative to the layer's folder.
function(coreset_layer name)
  cmake_parse_arguments(LAYER "" "HEADER_CHECKS" "SOURCES;DEPENDS" ${ARGN})
  coreset_layer_dir(${name} dir)
  set(view "${PROJECT_BINARY_DIR}/layers/${name}")
  file(REMOVE_RECURSE "${view}")
  file(MAKE_DIRECTORY "${view}")
  foreach(visible IN LISTS LAYER_DEPENDS name)
    coreset_layer_dir(${visible} target_dir)
    file(CREATE_LINK "${target_dir}" "${view}/${visible}" SYMBOLIC)
  endforeach()

  set(sources "")
  foreach(source IN LISTS LAYER_SOURCES)
    list(APPEND sources "${dir}/${source}")
  endforeach()
  add_library(coreset_${name} OBJECT ${sources})
  coreset_layer_settings(coreset_${name} "${view}")
  set_property(GLOBAL APPEND PROPERTY CORESET_LAYERS coreset_${name})

  # The header checks are a target of their own, part of the default build but not of the
  # library, so that building only the command (scripts/example.sh) skips them.
  if(NOT DEFINED LAYER_HEADER_CHECKS)
    set(LAYER_HEADER_CHECKS ON)
  endif()
  if(CORESET_CHECK_HEADERS AND LAYER_HEADER_CHECKS)
    set(checks "")
    file(GLOB_RECURSE headers RELATIVE "${dir}" CONFIGURE_DEPENDS "${dir}/*.hpp")
    foreach(header IN LISTS headers)
      string(MAKE_C_IDENTIFIER "${header}" stem)
      set(check "${PROJECT_BINARY_DIR}/layers/header_checks/${name}/${stem}.cpp")
      set(text "#include \"${name}/${header}\"  // compiles on its own, in its layer\n")
      if(EXISTS "${check}")
        file(READ "${check}" old)
      endif()
      if(NOT old STREQUAL text)
        file(WRITE "${check}" "${text}")
      endif()
      list(APPEND checks "${check}")
      unset(old)
    endforeach()
    add_library(coreset_${name}_header_checks OBJECT ${checks})
    coreset_layer_settings(coreset_${name}_header_checks "${view}")
    set_property(GLOBAL APPEND PROPERTY CORESET_HEADER_CHECKS coreset_${name}_header_checks)
  endif()
endfunction()

# What every object of a layer (its sources and its header checks) is compiled with; the
# third-party usage requirements are added in src/CMakeLists.txt.
function(coreset_layer_settings target view)
  target_include_directories(${target} PUBLIC "${PROJECT_SOURCE_DIR}/include" PRIVATE "${view}")
  # Hidden by default: libcoreset.so exports only what the public headers mark CORESET_API
  # (include/coreset/export.hpp; tests/exports/check_exports.cmake holds it to that).
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${CORESET_WARNINGS}>")
endfunction()
