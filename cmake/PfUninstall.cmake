# SPDX-License-Identifier: MIT
# `cmake --build build --target uninstall`: removes every file that
# `cmake --install build` listed in install_manifest.txt (cpack writes its
# own manifest, install_manifest_Unspecified.txt, and leaves this one alone).
set(manifest "${CMAKE_CURRENT_BINARY_DIR}/install_manifest.txt")
if(NOT EXISTS "${manifest}")
  message(FATAL_ERROR "no ${manifest}: nothing was installed from this build directory")
endif()
file(STRINGS "${manifest}" files)
foreach(f IN LISTS files)
  set(f "$ENV{DESTDIR}${f}")
  if(IS_SYMLINK "${f}" OR EXISTS "${f}")
    message(STATUS "Uninstalling ${f}")
    file(REMOVE "${f}")
    if(EXISTS "${f}")
      message(FATAL_ERROR "cannot remove ${f}")
    endif()
  else()
    message(STATUS "Not installed (already gone): ${f}")
  endif()
endforeach()
