# SPDX-License-Identifier: MIT
# pf_layer(NAME DIR dir LINKS targets... [EXCLUDE files...] [HEADERS h...]):
# the static library pf_NAME from DIR/*.c, its private headers (DIR) visible
# to itself and the libraries that link it, linked PUBLIC against the
# libraries it uses.  HEADERS names the headers of include/preflight/ it
# owns.  PF_LAYER_GRAPH records "pf_NAME|dir|links|headers" for tests/arch.
set(PF_LAYERS "" CACHE INTERNAL "the layer libraries, in declaration order")
set(PF_LAYER_GRAPH "" CACHE INTERNAL "each library's directory, links and headers")
function(pf_layer name)
  cmake_parse_arguments(L "" "DIR" "LINKS;EXCLUDE;HEADERS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${L_DIR}/*.c)
  foreach(x ${L_EXCLUDE})
    list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/${L_DIR}/${x})
  endforeach()
  add_library(pf_${name} STATIC ${sources})
  target_include_directories(pf_${name} PUBLIC ${L_DIR})
  target_link_libraries(pf_${name} PUBLIC pf_warnings pf_sanitizers ${L_LINKS})
  set(PF_LAYERS ${PF_LAYERS} pf_${name} CACHE INTERNAL "")
  set(deps "")
  foreach(x ${L_LINKS})
    if(x MATCHES "^pf_")
      list(APPEND deps ${x})
    endif()
  endforeach()
  string(REPLACE ";" "," deps "${deps}")
  string(REPLACE ";" "," hdrs "${L_HEADERS}")
  set(PF_LAYER_GRAPH ${PF_LAYER_GRAPH} "pf_${name}|${L_DIR}|${deps}|${hdrs}" CACHE INTERNAL "")
endfunction()
