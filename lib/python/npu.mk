# SPDX-License-Identifier: GPL-2.0-only
# The runtime package npu (included by lib/python/Makefile, whose variables
# it uses): $(BUILD)/python/npu/__init__.py and its C extension
# $(BUILD)/python/npu/_npu$(EXT_SUFFIX), over libnpu.so, which records its
# host spans with libnpuprof.so: shared, so that the process has the one
# capture library npuprof.profile() starts its session in (lib/python/
# Makefile; PY_RPATH finds them: libnpuprof.so is needed directly too, as
# a RUNPATH serves only the extension's own dependencies). libnpuref.a,
# the host reference of npu.reference_run(), is linked in (its objects are
# -fPIC). It exports PyInit__npu alone.
NPU_PKG := $(BUILD)/python/npu
NPU_EXT := $(NPU_PKG)/_npu$(EXT_SUFFIX)
NPU_PY_SRCS := $(wildcard $(SRC_DIR)/npu/*.py)
NPU_PY_OUT := $(NPU_PY_SRCS:$(SRC_DIR)/npu/%=$(NPU_PKG)/%)
LIBNPU_A := $(BUILD)/lib/libnpu.so
LIBNPUPROF_A := $(BUILD)/lib/libnpuprof.so
LIBNPUREF_A := $(BUILD)/lib/libnpuref.a
NPU_LDLIBS := -L$(BUILD)/lib -lnpu -Wl,--no-as-needed -lnpuprof -Wl,--as-needed \
	$(PY_RPATH) -lm -pthread

all: $(NPU_EXT) $(NPU_PY_OUT)

# lib/npu's Makefile builds libnpuprof too; the top Makefile builds both
# before lib/python
$(LIBNPU_A) $(LIBNPUPROF_A):
	$(MAKE) -C $(TOP)/lib/npu BUILD=$(BUILD) all

$(LIBNPUREF_A):
	$(MAKE) -C $(TOP)/lib/npuref BUILD=$(BUILD) all

$(OBJ)/_npu.o: $(SRC_DIR)/_npu.c $(TOP)/lib/npu/libnpu.h $(TOP)/uapi/linux/npu.h \
		$(TOP)/include/npu/npu_model_layers.h \
		$(TOP)/include/npu/npu_program.h $(TOP)/include/npu/npu_model_file.h \
		$(TOP)/lib/npuref/npuref.h
	@mkdir -p $(OBJ)
	$(CC) $(CPPFLAGS) -I$(TOP)/lib/npu -I$(TOP)/lib/npuref $(CFLAGS) -c -o $@ $<

# --exclude-libs: libnpuref's symbols stay in the extension
$(NPU_EXT): $(OBJ)/_npu.o $(LIBNPU_A) $(LIBNPUPROF_A) $(LIBNPUREF_A)
	@mkdir -p $(NPU_PKG)
	$(CC) -shared -Wl,--exclude-libs,ALL -o $@.tmp $(OBJ)/_npu.o $(LIBNPUREF_A) \
		$(NPU_LDLIBS)
	mv $@.tmp $@

$(NPU_PKG)/%.py: $(SRC_DIR)/npu/%.py
	@mkdir -p $(NPU_PKG)
	install -m 0644 $< $@
