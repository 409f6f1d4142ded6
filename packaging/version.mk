# SPDX-License-Identifier: GPL-2.0-only
#
# version.mk - the one version of the NPU stack, included by the top-level
# Makefile, packaging/Makefile and the libraries' Makefiles.
#
# NPU_VERSION names the release: the DKMS source directory
# (/usr/src/npu-$(NPU_VERSION)) and dkms.conf's PACKAGE_VERSION, the
# libraries' file names (libnpu.so.$(NPU_VERSION)) and pkg-config Version,
# the footer of the man pages. NPU_SOVERSION is the soname's number
# (libnpu.so.$(NPU_SOVERSION)): 0 while the ABI is not released, then
# raised only when a change breaks the ABI, never with NPU_VERSION alone.
NPU_VERSION := 0.1.0
NPU_SOVERSION := 0
