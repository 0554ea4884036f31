# SPDX-License-Identifier: MIT
# Linked dependencies, found with pkg-config.  CUDA, NCCL, libibverbs and
# librdmacm are never link-time requirements: they are dlopen'd at run time.
find_package(PkgConfig REQUIRED)

set(PF_LINK_DEPS "")
set(PF_SUMMARY "")
foreach(dep libcjson libnl-3.0 libnl-genl-3.0 hwloc numa)
  string(MAKE_C_IDENTIFIER "PFDEP_${dep}" var)
  pkg_check_modules(${var} REQUIRED IMPORTED_TARGET ${dep})
  list(APPEND PF_LINK_DEPS PkgConfig::${var})
  list(APPEND PF_SUMMARY "  ${dep} ${${var}_VERSION}")
endforeach()

# Optional, build-time only: used to compile-check our own declarations.
find_path(PF_CUDA_INCLUDE cuda.h PATHS /usr/local/cuda/include NO_DEFAULT_PATH)
# libibverbs-dev: its header is required (the loopback engine uses the
# verbs structures and the inline data-path verbs); the library is dlopen'd.
find_path(PF_VERBS_INCLUDE infiniband/verbs.h)
if(NOT PF_VERBS_INCLUDE)
  message(FATAL_ERROR "infiniband/verbs.h not found: install libibverbs-dev (rdma-core); "
                      "only the header is used at build time, libibverbs.so.1 is loaded at run time")
endif()

function(pf_print_summary)
  message(STATUS "preflight ${PROJECT_VERSION} configuration:")
  foreach(line ${PF_SUMMARY})
    message(STATUS "${line}")
  endforeach()
  message(STATUS "  loaded at run time (dlopen): libibverbs.so.1 librdmacm.so.1 libcuda.so.1 libnvidia-ml.so.1 libnccl.so.2")
  set(missing "")
  if(NOT PF_CUDA_INCLUDE)
    list(APPEND missing "CUDA headers (cuda.h): in-tree declarations are not cross-checked")
  endif()
  if(missing)
    message(STATUS "Missing optional items:")
    foreach(m ${missing})
      message(STATUS "  ${m}")
    endforeach()
  endif()
  message(STATUS "  warnings as errors: ${PF_WERROR}; sanitizers: ${PF_SANITIZE}; tests: ${PF_TESTS}")
endfunction()
