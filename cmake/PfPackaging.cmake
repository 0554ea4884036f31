# SPDX-License-Identifier: MIT
# Install layout beyond the binary and the man page, and the Debian package.
#
#   <prefix>/share/preflight/profiles/*.json        shipped profiles
#   <prefix>/share/bash-completion/completions/preflight
#   <prefix>/lib/systemd/system/preflight.service   oneshot after boot (systemd.pc's
#                                                   unit directory, PF_SYSTEMD_UNITDIR)
#   <prefix>/share/preflight/prometheus/preflight.rules.yml  alerting rules
#   <prefix>/share/doc/preflight/                   README, docs/*.md, copyright,
#                                                   changelog.gz
#   <prefix>/share/man/man1/preflight.1.gz          the man page
#   <prefix>/share/preflight/report.schema.json     the report's JSON Schema
#   <prefix>/share/preflight/slurm/preflight-prolog  the Slurm Prolog and
#   <prefix>/share/preflight/slurm/preflight-health  HealthCheckProgram wrappers
#   <prefix>/lib/systemd/system/preflight-textfile.{service,timer}
#                                                   Prometheus textfile run (disabled)
#   <prefix>/share/doc/preflight/examples/preflight.conf  example site config
#   <prefix>/share/doc/preflight/examples/kubernetes/      node-problem-detector
#                                                   plugin configs, DaemonSet,
#                                                   NodeReadinessRule (docs/kubernetes.md)
#
# `cmake --install build` writes build/install_manifest.txt and
# `cmake --build build --target uninstall` removes what it lists
# (cmake/PfUninstall.cmake).  cpack installs the component "Unspecified"
# into its own staging tree, so its manifest is install_manifest_Unspecified.txt
# and never replaces that of `cmake --install`.
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
# The unit directory as systemd's pkg-config file lays it out, relative to the
# install prefix (systemd.pc says ${rootprefix}/lib/systemd/system), so that
# `cmake --install --prefix` and the .deb (prefix /usr) agree.
if(NOT PF_SYSTEMD_UNITDIR)
  pkg_get_variable(pf_unitdir systemd systemd_system_unit_dir
                   DEFINE_VARIABLES root_prefix= rootprefix= prefix=)
  if(NOT pf_unitdir)
    pkg_get_variable(pf_unitdir systemd systemdsystemunitdir
                     DEFINE_VARIABLES root_prefix= rootprefix= prefix=)
  endif()
  string(REGEX REPLACE "^/+" "" pf_unitdir "${pf_unitdir}")
  if(NOT pf_unitdir)
    set(pf_unitdir lib/systemd/system) # no systemd.pc on the build machine
  endif()
  set(PF_SYSTEMD_UNITDIR ${pf_unitdir} CACHE STRING
      "systemd unit directory, relative to the install prefix (default: from systemd.pc)")
endif()
install(FILES contrib/systemd/preflight.service contrib/systemd/preflight-textfile.service
              contrib/systemd/preflight-textfile.timer DESTINATION ${PF_SYSTEMD_UNITDIR})
# the wrappers docs/slurm.md and the README show, run in place (they find the
# binary at ../../../bin/preflight) or copied and edited
install(PROGRAMS contrib/slurm/preflight-prolog contrib/slurm/preflight-health
        DESTINATION ${CMAKE_INSTALL_DATADIR}/preflight/slurm)
# an example, not a conffile: an installed /etc/preflight/preflight.conf would
# change every run; copy it and choose (docs/site-config.md)
install(FILES contrib/etc/preflight.conf DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
# examples too: a cluster's manifests are applied from a checkout or copied, never
# from the node (docs/kubernetes.md)
install(DIRECTORY contrib/kubernetes/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/kubernetes)
install(FILES contrib/prometheus/preflight.rules.yml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/preflight/prometheus)
install(FILES docs/report.schema.json DESTINATION ${CMAKE_INSTALL_DATADIR}/preflight)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)
install(FILES contrib/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Debian policy: the man page and the changelog are installed gzip -9n'ed
# (no name or timestamp inside, so the package is reproducible).
set(PF_PACKAGE_MAINTAINER "preflight maintainers <preflight-maintainers@example.org>"
    CACHE STRING "the package's Maintainer field (a site building its own .deb sets its own)")
string(TIMESTAMP PF_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(contrib/debian/changelog.in ${CMAKE_BINARY_DIR}/changelog @ONLY)
find_program(PF_GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/preflight.1.gz
  COMMAND ${PF_GZIP} -9n -c ${PROJECT_SOURCE_DIR}/docs/preflight.1 > ${CMAKE_BINARY_DIR}/preflight.1.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/docs/preflight.1 VERBATIM)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/changelog.gz
  COMMAND ${PF_GZIP} -9n -c ${CMAKE_BINARY_DIR}/changelog > ${CMAKE_BINARY_DIR}/changelog.gz
  DEPENDS ${CMAKE_BINARY_DIR}/changelog VERBATIM)
add_custom_target(pf_package_docs ALL
  DEPENDS ${CMAKE_BINARY_DIR}/preflight.1.gz ${CMAKE_BINARY_DIR}/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/preflight.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_BINARY_DIR}/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})

add_custom_target(uninstall
  COMMAND ${CMAKE_COMMAND} -P ${PROJECT_SOURCE_DIR}/cmake/PfUninstall.cmake
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  COMMENT "removing the files listed in install_manifest.txt")
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME preflight)
set(CPACK_PACKAGE_VENDOR "preflight")
set(CPACK_PACKAGE_CONTACT "${PF_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PF_PACKAGE_MAINTAINER}")
# stage only the component "Unspecified" (every install() here): cpack's manifest is
# then install_manifest_Unspecified.txt, not the one `cmake --install` wrote
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};${PROJECT_NAME};Unspecified;/")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "node preflight validation for GPU/RDMA training clusters")
set(CPACK_PACKAGE_DESCRIPTION
    "preflight checks, in seconds, whether a GPU/RDMA node is fit to join a\n\
training job (locked-memory limits, sysctls, GPUDirect RDMA, link speeds,\n\
GPU-NIC affinity, PFC) and writes a pass/fail report as JSON, text, JUnit\n\
or Prometheus text. It runs as a Slurm Prolog or HealthCheckProgram, after\n\
boot (preflight.service) and in CI.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends from the linked libraries themselves (dpkg-shlibdeps, in dpkg-dev),
# so another distribution's build gets its own package names and versions;
# without it, Debian 12 (bookworm) names, checked with apt-cache policy.
find_program(PF_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(PF_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6 (>= 2.34), libcjson1 (>= 1.7.15), libnl-3-200 (>= 3.7.0), libnl-genl-3-200 (>= 3.7.0), libhwloc15 (>= 2.9.0), libnuma1 (>= 2.0.16)")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libibverbs1, ibverbs-providers")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client, rdma-core")
include(CPack)
