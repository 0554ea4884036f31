# SPDX-License-Identifier: MIT
# Warning set of the house style, applied through an interface target; each
# flag only if the compiler accepts it.  -Werror only with PF_WERROR (CI).
include(CheckCCompilerFlag)

add_library(pf_warnings INTERFACE)
foreach(flag -Wall -Wextra -Wshadow -Wmissing-prototypes -Wmissing-declarations
             -Wstrict-prototypes -Wwrite-strings -Wformat=2 -Wformat-nonliteral
             -Wcast-function-type -Wdate-time -Wvla -Wundef -Wno-unused-parameter
             -Werror=implicit-function-declaration)
  string(MAKE_C_IDENTIFIER "HAVE${flag}" var)
  check_c_compiler_flag(${flag} ${var})
  if(${var})
    target_compile_options(pf_warnings INTERFACE ${flag})
  endif()
endforeach()
if(PF_WERROR)
  target_compile_options(pf_warnings INTERFACE -Werror)
endif()

add_library(pf_sanitizers INTERFACE)
if(PF_SANITIZE)
  target_compile_options(pf_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(pf_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
