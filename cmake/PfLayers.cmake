# SPDX-License-Identifier: MIT
# pf_layer(NAME DIR dir LINKS targets... [EXCLUDE files...]): the static
# library pf_NAME from DIR/*.c, its headers (DIR) visible to itself and the
# layers above, linked PUBLIC against the layer below and what it needs.
set(PF_LAYERS "" CACHE INTERNAL "the layer libraries, bottom to top")
function(pf_layer name)
  cmake_parse_arguments(L "" "DIR" "LINKS;EXCLUDE" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${L_DIR}/*.c)
  foreach(x ${L_EXCLUDE})
    list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/${L_DIR}/${x})
  endforeach()
  add_library(pf_${name} STATIC ${sources})
  target_include_directories(pf_${name} PUBLIC ${L_DIR})
  target_link_libraries(pf_${name} PUBLIC pf_warnings pf_sanitizers ${L_LINKS})
  set(PF_LAYERS ${PF_LAYERS} pf_${name} CACHE INTERNAL "")
endfunction()
