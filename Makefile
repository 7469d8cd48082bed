# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# cgsched: `make` builds, `make run` shows the main view, `make test` runs
# the whole suite. `make deps` installs the Debian packages all of it needs.

.DELETE_ON_ERROR:
# Skeletons and BPF objects are pattern-rule intermediates: keep them.
.SECONDARY:
.SUFFIXES:

OUTPUT    ?= .output
PREFIX    ?= /usr/local
DESTDIR   ?=
CLANG     ?= clang
BPFTOOL   ?= bpftool
CC        ?= cc
ARCH      := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
# Build against the committed minimal kernel-types header; VMLINUX_H=path
# builds against a full vmlinux.h (bpftool btf dump ... format c) instead.
VMLINUX_H ?=

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-Iinclude -Ibpf -I$(OUTPUT) -I/usr/include/$(shell uname -m)-linux-gnu \
	$(if $(VMLINUX_H),-DCGS_VMLINUX_H='"$(abspath $(VMLINUX_H))"')
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration \
	-Iinclude -I$(OUTPUT) -D_GNU_SOURCE
LDLIBS   := -lbpf -lelf -lz -ljson-c -linih -lm -pthread

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
LIB_SRCS  := $(filter-out src/main.c,$(wildcard src/*.c))
LIB_OBJS  := $(patsubst src/%.c,$(OUTPUT)/src/%.o,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,$(wildcard tests/workloads/*.c))

.PHONY: all deps run test test-unit test-live test-vm bench install clean
all: cgsched $(WORKLOADS) $(OUTPUT)/bench-floor $(OUTPUT)/bench-cputime

# --- Debian packages ------------------------------------------------------
# Build: clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libjson-c-dev
# pkg-config; tests: libcriterion-dev stress-ng jq; the second kernel: qemu-system-x86
# busybox-static cpio; bench: linux-perf libbpf-tools (runqlat). Only missing
# ones are installed, after one update.
DEB_PKGS := clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libjson-c-dev libinih-dev jq \
	pkg-config make gcc libcriterion-dev stress-ng \
	qemu-system-x86 busybox-static cpio linux-perf libbpf-tools
deps:
	$(Q)./scripts/deps.sh $(DEB_PKGS)

run: deps all
	$(Q)./cgsched top -i 1 -n 10

test: deps all $(OUTPUT)/unit-tests
	$(Q)./tests/run.sh

test-unit: $(OUTPUT)/unit-tests
	$(Q)$(OUTPUT)/unit-tests

test-live: all
	$(Q)./tests/live/run.sh

# The live tests again on Debian's Linux 6.1 under QEMU, cgroup v2.
test-vm: all
	$(Q)./tests/vm/run.sh

# --- BPF ------------------------------------------------------------------
$(OUTPUT) $(OUTPUT)/src $(OUTPUT)/workloads:
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) include/cgsched.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf > $@

# --- loader ---------------------------------------------------------------
$(OUTPUT)/src/%.o: src/%.c $(wildcard include/*.h) $(SKELS) | $(OUTPUT)/src
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

cgsched: $(LIB_OBJS) $(OUTPUT)/src/main.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/workloads/%: tests/workloads/%.c | $(OUTPUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -std=gnu11 -pthread $< -o $@ -lm

$(OUTPUT)/unit-tests: $(UNIT_SRCS) $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -lcriterion -o $@

$(OUTPUT)/bench-floor: tests/bench/floor.c $(OUTPUT)/floor.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -lbpf -lelf -lz -o $@

$(OUTPUT)/bench-cputime: tests/bench/cputime.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -std=gnu11 $< -o $@

# Overhead against nothing, empty programs and runqlat (docs/performance.md).
bench: deps all
	$(Q)./tests/bench/run.sh

install: cgsched
	install -D -m 0755 cgsched $(DESTDIR)$(PREFIX)/sbin/cgsched

clean:
	rm -rf $(OUTPUT) cgsched
