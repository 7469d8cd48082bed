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
# CFLAGS is the user's (make CFLAGS=-O0 replaces it whole); the project's own
# flags live apart, where a command-line CFLAGS cannot drop -Iinclude.
CFLAGS   ?= -O2 -g
CGS_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration \
	-Iinclude -Isrc -I$(OUTPUT) -D_GNU_SOURCE
LDLIBS   := -lbpf -lelf -lz -ljson-c -linih -lmicrohttpd -lyaml -lcrypt -lprotobuf-c -lncursesw -lm -pthread
# Sanitizers: the loader and unit tests again with ASan and UBSan (any report
# fails), and the libFuzzer harnesses of tests/fuzz.
SAN_FLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZERS    := $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 60

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
# src/ by layer: cmd (commands), exporter (/metrics), session (tracing and
# its refresh), report (rows and their outputs), figures (snapshots, kernel
# figures), trace (BPF loading), kernel (cgroupfs), limits, lib (docs/design.md).
LIB_SRCS  := $(filter-out src/cmd/main.c,$(wildcard src/*/*.c))
HDRS      := $(wildcard include/*.h src/*/*.h)
LIB_OBJS  := $(patsubst src/%.c,$(OUTPUT)/src/%.o,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
# --timeline's encoder: protoc-c's code for the subset of Perfetto's schema
# (src/report/perfetto.proto), generated into $(OUTPUT), compiled once and
# linked into every binary (sanitizers instrument the project's own code).
PROTO_H   := $(OUTPUT)/perfetto.pb-c.h
PROTO_OBJ := $(OUTPUT)/perfetto.pb-c.o
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,$(wildcard tests/workloads/*.c))

.PHONY: man pages all deps run test test-unit test-live test-vm test-matrix bench soak install clean sanitizers fuzz kernels-doc \
	deb k8s-tools k8s-manifest
all: cgsched $(OUTPUT)/cgsched.8 $(WORKLOADS) $(OUTPUT)/bench-floor $(OUTPUT)/bench-cputime $(OUTPUT)/bench-readmodel $(OUTPUT)/scx_min

# --- Debian packages ------------------------------------------------------
# Build: clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libjson-c-dev
# pkg-config, libmicrohttpd-dev libyaml-dev libcrypt-dev (export), libncurses-dev
# (top's screen); tests: tmux (the screen's),
# libcriterion-dev stress-ng jq gojq, prometheus curl openssl perl (export's), libclang-rt-dev (ASan, UBSan,
# libFuzzer); the second kernel: qemu-system-x86
# busybox-static cpio; bench: linux-perf libbpf-tools (runqlat); the man page:
# groff-base. Only missing ones are installed, after one update.
# The package (make deb): debhelper, fakeroot, lintian. (The chart's tests
# build helm and their check with the Go installed in /usr/local/go: Debian
# 12's golang-go is older than either needs.)
# BUILD_PKGS is also the package's Build-Depends (dist/debian/control.in).
BUILD_PKGS := clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libjson-c-dev libinih-dev \
	libmicrohttpd-dev libyaml-dev libcrypt-dev libprotobuf-c-dev protobuf-c-compiler libncurses-dev \
	pkg-config make gcc
DEB_PKGS := $(BUILD_PKGS) jq gojq prometheus curl openssl perl python3-venv tmux \
	libcriterion-dev stress-ng \
	qemu-system-x86 busybox-static cpio linux-perf libbpf-tools libclang-rt-dev groff-base \
	debhelper fakeroot lintian
deps:
	$(Q)./scripts/deps.sh $(DEB_PKGS)
	$(Q)$(MAKE) -s $(VENV)/ok

# Perfetto's own schema for the --timeline tests (perfetto_trace_pb2), from
# PyPI into a venv under $(OUTPUT): pinned, made once.
VENV := $(OUTPUT)/venv
PY_PKGS := perfetto==0.59.1 protobuf==7.36.2
$(VENV)/ok: | $(OUTPUT)
	$(call msg,VENV,$(VENV): $(PY_PKGS))
	$(Q)rm -rf $(VENV) && python3 -m venv $(VENV) && $(VENV)/bin/pip install -q --disable-pip-version-check $(PY_PKGS)
	$(Q)touch $@

# run and test build in parallel, a job a CPU, once the packages are in (as
# prerequisites beside deps, a parallel make would compile before a fresh
# machine had clang): 51 s against 89 for test's build here (2 CPUs).
NPROC := $(shell nproc 2>/dev/null || echo 1)
# What the suite runs: the tool, the unit tests, the sanitized builds, Perfetto's venv.
# (And the package, and the chart's tools where there is a Go to build them: GO, below.)
TEST_BUILD = all $(OUTPUT)/unit-tests sanitizers $(VENV)/ok deb $(if $(GO),k8s-tools)

run: deps
	$(Q)$(MAKE) -j$(NPROC) all
	$(Q)./cgsched top -i 1 -n 10

test: deps
	$(Q)$(MAKE) -j$(NPROC) $(TEST_BUILD)
	$(Q)./tests/run.sh

test-unit: $(OUTPUT)/unit-tests
	$(Q)$(OUTPUT)/unit-tests

test-live: all
	$(Q)./tests/live/run.sh

# The live tests again on one of Debian's kernels under QEMU (tests/vm/kernels;
# CGS_VM_KERNEL=5.10|6.1|6.12|7.3|6.12-rt, default 6.1).
test-vm: all
	$(Q)./tests/vm/run.sh

# make test with every live test on every kernel of tests/vm/kernels (6.12-rt too).
test-matrix: deps
	$(Q)$(MAKE) -j$(NPROC) $(TEST_BUILD)
	$(Q)CGS_VM_MATRIX=1 ./tests/run.sh

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
$(OUTPUT)/perfetto.pb-c.c $(PROTO_H) &: src/report/perfetto.proto | $(OUTPUT)
	$(call msg,PROTOC,$@)
	$(Q)protoc-c --c_out=$(OUTPUT) --proto_path=src/report $<

$(PROTO_OBJ): $(OUTPUT)/perfetto.pb-c.c $(PROTO_H)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -I$(OUTPUT) -c $< -o $@

# CPPFLAGS and LDFLAGS: the user's too (make deb: dpkg-buildflags' hardening).
$(OUTPUT)/src/%.o: src/%.c $(HDRS) $(SKELS) $(PROTO_H) | $(OUTPUT)/src
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CGS_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

cgsched: $(LIB_OBJS) $(OUTPUT)/src/cmd/main.o $(PROTO_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CGS_CFLAGS) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/workloads/%: tests/workloads/%.c | $(OUTPUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -std=gnu11 -pthread $< -o $@ -lm

$(OUTPUT)/unit-tests: $(UNIT_SRCS) $(LIB_OBJS) $(PROTO_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CGS_CFLAGS) $(CFLAGS) $^ $(LDLIBS) -lcriterion -o $@

# --- sanitizers and fuzzing (clang; libclang-rt-dev) ------------------------
$(OUTPUT)/asan/%.o: src/%.c $(HDRS) $(SKELS) $(PROTO_H)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CGS_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(OUTPUT)/asan/cgsched: $(patsubst $(OUTPUT)/src/%,$(OUTPUT)/asan/%,$(LIB_OBJS)) $(OUTPUT)/asan/cmd/main.o $(PROTO_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CLANG) $(CGS_CFLAGS) $(SAN_FLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/asan/unit-tests: $(UNIT_SRCS) $(patsubst $(OUTPUT)/src/%,$(OUTPUT)/asan/%,$(LIB_OBJS)) $(PROTO_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CLANG) $(CGS_CFLAGS) $(SAN_FLAGS) $^ $(LDLIBS) -lcriterion -o $@

$(OUTPUT)/fuzz/obj/%.o: src/%.c $(HDRS) $(SKELS) $(PROTO_H)
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CGS_CFLAGS) $(SAN_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(OUTPUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(patsubst $(OUTPUT)/src/%,$(OUTPUT)/fuzz/obj/%,$(LIB_OBJS)) $(PROTO_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CLANG) $(CGS_CFLAGS) $(SAN_FLAGS) -fsanitize=fuzzer $(filter %.c %.o,$^) $(LDLIBS) -o $@

sanitizers: $(OUTPUT)/asan/cgsched $(OUTPUT)/asan/unit-tests $(FUZZERS)

# Each harness for FUZZ_SECONDS (default 60) from its seeds in tests/fuzz/corpus.
fuzz: deps $(FUZZERS)
	$(Q)./tests/fuzz/run.sh $(FUZZ_SECONDS)

$(OUTPUT)/bench-floor: tests/bench/floor.c $(OUTPUT)/floor.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CGS_CFLAGS) $(CFLAGS) $< -lbpf -lelf -lz -o $@

# A sched_ext scheduler of the tests' own, for the guests that have sched_ext.
$(OUTPUT)/scx_min.bpf.o: tests/vm/scx_min.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/scx_min: tests/vm/scx_min.c $(OUTPUT)/scx_min.bpf.o
	$(call msg,CC,$@)
	$(Q)$(CC) $(CGS_CFLAGS) $(CFLAGS) $< -lbpf -lelf -lz -o $@

# A refresh's map read at a big host's size (tests/bench/readmodel.c), the loader's own code.
$(OUTPUT)/bench-readmodel: tests/bench/readmodel.c $(LIB_OBJS) $(PROTO_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CGS_CFLAGS) $(CFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/bench-cputime: tests/bench/cputime.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -std=gnu11 $< -o $@

# Overhead against nothing, empty programs and runqlat (docs/performance.md).
bench: deps all
	$(Q)./tests/bench/run.sh

# 10 minutes under cgroup churn, faults and load (not in make test): tests/soak/run.sh.
soak: deps all
	$(Q)./tests/soak/run.sh

# The compatibility matrix of the last `make test`, into the tree.
kernels-doc:
	$(Q)test -f $(OUTPUT)/kernels.md || { echo "no $(OUTPUT)/kernels.md: run 'make test' first"; exit 2; }
	$(Q)cp $(OUTPUT)/kernels.md docs/kernels.md
	$(Q)echo "docs/kernels.md updated from the last make test"

# The binary, the exporter's and the watch's systemd units (with the binary's
# path) and the docs they point to: docs/commands/*.md go in commands/, since
# they link to the other docs with ../.
SYSTEMD_UNITDIR ?= /etc/systemd/system
DOCDIR ?= $(PREFIX)/share/doc/cgsched
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
install: cgsched $(OUTPUT)/cgsched.8
	install -D -m 0755 cgsched $(DESTDIR)$(PREFIX)/sbin/cgsched
	install -d $(DESTDIR)$(SYSTEMD_UNITDIR) $(DESTDIR)$(DOCDIR)
	for u in cgsched-export cgsched-watch; do \
		sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@DOCDIR@|$(DOCDIR)|g' dist/$$u.service \
			>$(DESTDIR)$(SYSTEMD_UNITDIR)/$$u.service && \
		chmod 0644 $(DESTDIR)$(SYSTEMD_UNITDIR)/$$u.service || exit 1; \
	done
	install -m 0644 README.md CONTRIBUTING.md docs/*.md $(DESTDIR)$(DOCDIR)/
	install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/commands docs/commands/*.md
	install -D -m 0644 $(OUTPUT)/cgsched.8 $(DESTDIR)$(PREFIX)/share/man/man8/cgsched.8
	install -D -m 0644 dist/cgsched.bash $(DESTDIR)$(BASHCOMPDIR)/cgsched

# The man page: its own text and each command's --help (dist/man/mkman.sh).
man: $(OUTPUT)/cgsched.8
$(OUTPUT)/cgsched.8: cgsched dist/man/cgsched.8.in dist/man/mkman.sh
	$(call msg,MAN,$@)
	$(Q)sh dist/man/mkman.sh ./cgsched dist/man/cgsched.8.in $@

# The Options block of each docs/commands/NAME.md, rewritten from
# cgsched NAME --help (dist/man/mkpages.sh). Commit the pages it changes.
pages: cgsched
	$(Q)sh dist/man/mkpages.sh ./cgsched

# --- The Debian package ---------------------------------------------------
# make deb: .output/deb/cgsched_VERSION_ARCH.deb, built by dpkg-buildpackage
# from a copy of the tree (the files git knows, as they are now) with
# dist/debian as its debian/; its Build-Depends are BUILD_PKGS. The deb's
# test (tests/live/t_dist.sh) runs lintian on it and cgsched from it.
VERSION := $(shell sed -n 's/^\#define CGS_VERSION "\(.*\)"/\1/p' src/lib/util.h)
DEB_DIR := $(OUTPUT)/deb
DEB_SRC := $(DEB_DIR)/cgsched-$(VERSION)
deb:
	$(Q)./scripts/deps.sh dpkg-dev debhelper fakeroot $(BUILD_PKGS)
	$(call msg,DEB,$(DEB_DIR))
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	$(Q)git ls-files -z --cached --others --exclude-standard | \
		grep -zv '^dist/debian/' | xargs -0 cp --parents -t $(DEB_SRC)
	$(Q)cp -r dist/debian $(DEB_SRC)/debian && rm $(DEB_SRC)/debian/control.in
	$(Q)sed 's/@BUILD_DEPENDS@/$(shell echo $(BUILD_PKGS) | sed 's/ /, /g')/' dist/debian/control.in >$(DEB_SRC)/debian/control
	$(Q)printf 'cgsched (%s) unstable; urgency=medium\n\n  * Version %s (the project'"'"'s history is its git log).\n\n -- %s  %s\n' \
		'$(VERSION)' '$(VERSION)' "$$(sed -n 's/^Maintainer: //p' dist/debian/control.in)" \
		"$$(date -R -d @$$(git log -1 --format=%ct 2>/dev/null || date +%s))" >$(DEB_SRC)/debian/changelog
	$(Q)cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b -j$(NPROC) >../build.log 2>&1 || \
		{ tail -n 30 ../build.log; echo "make deb: dpkg-buildpackage failed; $(DEB_DIR)/build.log has it all" >&2; exit 1; }
	$(Q)ls $(DEB_DIR)/cgsched_$(VERSION)_*.deb

# --- Kubernetes -------------------------------------------------------------
# The chart (dist/helm/cgsched) and the manifest rendered from it
# (dist/kubernetes/cgsched.yaml: make k8s-manifest). Its tests' tools,
# pinned, built from the Go module proxy with the Go in /usr/local/go
# (Debian 12's is too old): helm, and tests/k8s's check of the rendered
# objects against the API's types and rules.
GO ?= $(firstword $(wildcard /usr/local/go/bin/go) $(shell command -v go 2>/dev/null))
HELM_VERSION := v3.22.0
# What helm's own Makefile stamps in: its version, and the Kubernetes of its
# client-go (v0.37: 1.37), which helm template and lint assume for a chart's
# kubeVersion (unstamped, 1.20).
HELM_LDFLAGS := -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
	$(foreach p,pkg/lint/rules pkg/chartutil,-X helm.sh/helm/v3/$(p).k8sVersionMajor=1 -X helm.sh/helm/v3/$(p).k8sVersionMinor=37)
TOOLS := $(OUTPUT)/tools
k8s-tools: $(TOOLS)/helm $(TOOLS)/k8scheck
$(TOOLS)/helm:
	$(call msg,GO,$@ $(HELM_VERSION))
	$(Q)test -n "$(GO)" || { echo "no Go here: /usr/local/go/bin/go or go on PATH builds helm" >&2; exit 2; }
	$(Q)CGO_ENABLED=0 GOBIN=$(abspath $(TOOLS)) GOFLAGS=-mod=mod $(GO) install -ldflags '$(HELM_LDFLAGS)' helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
$(TOOLS)/k8scheck: tests/k8s/main.go tests/k8s/go.mod tests/k8s/go.sum
	$(call msg,GO,$@)
	$(Q)test -n "$(GO)" || { echo "no Go here: /usr/local/go/bin/go or go on PATH builds the check" >&2; exit 2; }
	$(Q)cd tests/k8s && CGO_ENABLED=0 $(GO) build -o $(abspath $@) .
# The plain manifest: the chart with its defaults, in namespace cgsched (created first).
k8s-manifest: $(TOOLS)/helm
	$(Q)sh dist/kubernetes/render.sh $(TOOLS)/helm >dist/kubernetes/cgsched.yaml
	$(Q)echo "dist/kubernetes/cgsched.yaml rendered from dist/helm/cgsched"

clean:
	rm -rf $(OUTPUT) cgsched
