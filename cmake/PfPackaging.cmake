# SPDX-License-Identifier: MIT
# Install layout beyond the binary and the man page, and the Debian package.
#
#   <prefix>/share/preflight/profiles/*.json        shipped profiles
#   <prefix>/share/bash-completion/completions/preflight
#   <prefix>/lib/systemd/system/preflight.service   oneshot after boot
#   <prefix>/share/preflight/prometheus/preflight.rules.yml  alerting rules
#   <prefix>/share/doc/preflight/                   README, docs/*.md
#
# `cpack -G DEB` in the build directory writes preflight_<version>_<arch>.deb
# (prefix /usr); its dependencies are the Debian 12 runtime packages of the
# linked libraries.  The dlopen'ed libraries (verbs, CUDA, NVML, NCCL) are
# only recommended: the binary starts and reports their absence as findings.

# `make install` and cpack's preinstall step do not rebuild every target
# (tests, fuzzers) first: packaging needs only what is installed, built
# beforehand (`cmake --build` then `cpack`, as the package test does).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)

install(DIRECTORY profiles/ DESTINATION ${CMAKE_INSTALL_DATADIR}/preflight/profiles
        FILES_MATCHING PATTERN "*.json")
install(FILES contrib/bash-completion/preflight
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES contrib/systemd/preflight.service DESTINATION lib/systemd/system)
install(FILES contrib/prometheus/preflight.rules.yml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/preflight/prometheus)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME preflight)
set(CPACK_PACKAGE_VENDOR "preflight")
set(CPACK_PACKAGE_CONTACT "preflight maintainers <preflight@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "node preflight validation for GPU/RDMA training clusters")
set(CPACK_PACKAGE_DESCRIPTION
    "preflight checks, in seconds, whether a GPU/RDMA node is fit to join a training job\n\
(locked-memory limits, sysctls, GPUDirect RDMA, link speeds, GPU-NIC affinity, PFC)\n\
and writes a pass/fail report as JSON, text, JUnit or Prometheus text. It runs as a\n\
Slurm Prolog or HealthCheckProgram, after boot (preflight.service) and in CI.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Debian 12 (bookworm) package names, checked with apt-cache policy.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6 (>= 2.34), libcjson1 (>= 1.7.15), libnl-3-200 (>= 3.7.0), libnl-genl-3-200 (>= 3.7.0), libnl-route-3-200 (>= 3.7.0), libhwloc15 (>= 2.9.0), libnuma1 (>= 2.0.16)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libibverbs1, ibverbs-providers")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client, rdma-core")
include(CPack)
