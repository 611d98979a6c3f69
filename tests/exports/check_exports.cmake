# Holds libcoreset.so to its public API (cmake -P, run by ctest):
#
#   cmake -DLIBRARY=libcoreset.so -DHEADERS=include/coreset -DNM=nm -P check_exports.cmake
#
# Every name in namespace coreset that an exported symbol mentions (its own name, and the types in
# its signature or template arguments) must be declared in a public header: at namespace scope in
# coreset, coreset::io or coreset::detail. Anything else (coreset::solvers::..., coreset::cuda::...,
# coreset::io::detail::..., a top-level coreset:: helper no header declares) is an internal that
# leaked: the layers are compiled with hidden visibility and only CORESET_API declarations should
# come out. The offenders are listed and the check fails. It also fails when the typeinfo of an
# exception class of error.hpp is not exported (catch across the .so boundary needs it).
#
# -DSYMBOLS=FILE checks the `nm -D --defined-only -C` output in FILE instead of running nm (the
# test of this check itself).
cmake_minimum_required(VERSION 3.24)

if(NOT HEADERS)
  message(FATAL_ERROR "check_exports: pass -DHEADERS=<include/coreset folder>")
endif()

# What the public headers declare, as fully qualified names: namespaces are tracked line by line
# (the headers are clang-formatted: namespace contents start in column 0, and each namespace closes
# with "}  // namespace NAME").
set(public_namespaces "")
set(public_names "")
set(exception_classes "")
file(GLOB headers "${HEADERS}/*.hpp")
foreach(header IN LISTS headers)
  file(STRINGS "${header}" lines)
  set(stack "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^namespace ([A-Za-z_:]+) {")
      string(REPLACE "::" ";" parts "${CMAKE_MATCH_1}")
      foreach(part IN LISTS parts)
        list(APPEND stack "${part}")
        list(JOIN stack "::" scope)
        list(APPEND public_namespaces "${scope}")
      endforeach()
      # One closing line closes a nested namespace written as a::b: remember how many to pop.
      list(LENGTH parts depth)
      list(APPEND pops "${depth}")
      continue()
    endif()
    if(line MATCHES "^}  // namespace")
      list(POP_BACK pops depth)
      foreach(unused RANGE 1 ${depth})
        list(POP_BACK stack)
      endforeach()
      continue()
    endif()
    list(JOIN stack "::" scope)
    if(NOT scope MATCHES "^coreset")
      continue()
    endif()
    set(name "")
    if(line MATCHES "^(class|struct)( CORESET_API)? ([A-Za-z_][A-Za-z0-9_]*)")
      set(name "${CMAKE_MATCH_3}")
      set(kind "${CMAKE_MATCH_1}")
      if(kind STREQUAL "class" AND header MATCHES "error\\.hpp$")
        list(APPEND exception_classes "${scope}::${name}")
      endif()
    elseif(line MATCHES "^enum (class )?([A-Za-z_][A-Za-z0-9_]*)")
      set(name "${CMAKE_MATCH_2}")
    elseif(line MATCHES "^using ([A-Za-z_][A-Za-z0-9_]*) =")
      set(name "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^[A-Za-z][^(=/]*[ *&]([A-Za-z_][A-Za-z0-9_]*)\\(")
      # A function declared at namespace scope: its name is the identifier before the '('.
      set(name "${CMAKE_MATCH_1}")
    endif()
    if(name)
      list(APPEND public_names "${scope}::${name}")
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES public_namespaces)
list(REMOVE_DUPLICATES public_names)
list(LENGTH public_names declared)
if(declared LESS 20)
  message(FATAL_ERROR "check_exports: found only ${declared} public declarations under ${HEADERS}")
endif()

if(SYMBOLS)
  file(READ "${SYMBOLS}" listing)
else()
  if(NOT LIBRARY OR NOT NM)
    message(FATAL_ERROR "check_exports: pass -DLIBRARY=<libcoreset.so> and -DNM=<nm>")
  endif()
  execute_process(COMMAND "${NM}" -D --defined-only -C "${LIBRARY}" OUTPUT_VARIABLE listing
                  RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "check_exports: ${NM} failed on ${LIBRARY}: ${errors}")
  endif()
endif()
# Semicolons would split the listing's lines into list items.
string(REPLACE ";" "," listing "${listing}")
string(REPLACE "\n" ";" symbols "${listing}")

# A qualified name a.b.c is public when it walks through public namespaces to a declared name.
function(is_public qualified out)
  string(REPLACE "::" ";" parts "${qualified}")
  list(POP_FRONT parts scope)
  foreach(part IN LISTS parts)
    if("${scope}::${part}" IN_LIST public_namespaces)
      set(scope "${scope}::${part}")
      continue()
    endif()
    if("${scope}::${part}" IN_LIST public_names)
      set(${out} TRUE PARENT_SCOPE)
    else()
      set(${out} FALSE PARENT_SCOPE)
    endif()
    return()
  endforeach()
  set(${out} TRUE PARENT_SCOPE)  # a namespace alone
endfunction()

set(exported 0)
set(offenders "")
set(exported_names "")
foreach(symbol IN LISTS symbols)
  if(NOT symbol MATCHES "coreset::")
    continue()
  endif()
  math(EXPR exported "${exported} + 1")
  string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] " "" name "${symbol}")
  list(APPEND exported_names "${name}")
  set(bad "")
  if(symbol MATCHES "coreset::\\(anonymous namespace\\)")
    set(bad "coreset::(anonymous namespace)")
  endif()
  string(REGEX MATCHALL "coreset(::[A-Za-z_][A-Za-z0-9_]*)+" mentions "${symbol}")
  foreach(mention IN LISTS mentions)
    is_public("${mention}" public)
    if(NOT public)
      set(bad "${mention}")
      break()
    endif()
  endforeach()
  if(bad)
    list(APPEND offenders "  ${name}\n      (${bad} is not declared by a public header)")
  endif()
endforeach()

set(missing "")
foreach(class IN LISTS exception_classes)
  if(NOT "typeinfo for ${class}" IN_LIST exported_names)
    list(APPEND missing "  typeinfo for ${class}")
  endif()
endforeach()

message(STATUS "check_exports: ${exported} exported symbols name namespace coreset; "
               "${declared} public declarations")
list(LENGTH offenders offending)
if(offending GREATER 0 OR missing OR exported EQUAL 0)
  list(JOIN offenders "\n" offender_text)
  list(JOIN missing "\n" missing_text)
  message(FATAL_ERROR "check_exports: ${offending} exported symbols are not public API:\n"
                      "${offender_text}\n"
                      "exception typeinfo not exported (catch across the library fails):\n"
                      "${missing_text}\n")
endif()
