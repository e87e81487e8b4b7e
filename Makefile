# SPDX-License-Identifier: GPL-2.0
#
# Top-level entry points.  `make` builds rdma_sroce.ko for the running
# kernel, or says which one it builds for (scripts/kver.sh); `make install`
# puts it under /lib/modules/<kernel>/updates.  KVER=<release> or KDIR=<dir>
# pick another kernel.  The other targets run KUnit, the guest tests and the
# demo, whose guests boot Debian's 6.12: they build for that kernel.

# Asked once, and only by the targets that build.
ifeq ($(origin KVER)$(origin KDIR),undefinedundefined)
KVER = $(eval KVER := $$(shell sh scripts/kver.sh))$(KVER)
endif
KDIR ?= /lib/modules/$(KVER)/build
# the release KDIR's headers are for, where modules_install puts the module
KREL = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
RIG_KVER = $(shell sh scripts/kver.sh --rig)

.PHONY: all modules deps kunit vmtest check check-long demo bench profile clean \
	style deb install uninstall rig-modules

all: modules

deps:
	@bash scripts/deps.sh >/dev/null

modules:
	@test -e "$(KDIR)/Makefile" || { echo "no kernel headers in '$(KDIR)': install the" \
		"linux-headers package of the kernel (Debian: linux-headers-$$(uname -r))," \
		"or run 'make deps' for the test rig's" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_RDMA_SROCE=m modules

# the module for the guests' kernel
rig-modules:
	@$(MAKE) --no-print-directory modules KVER=$(RIG_KVER)

# INSTALL_MOD_PATH=<root> installs under another root, as for the kernel.
# Unsigned: a distribution's headers carry no key to sign with (the admin
# guide says how to sign for Secure Boot).
install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates CONFIG_MODULE_SIG_ALL= \
		modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KREL)

uninstall:
	@test -n "$(KREL)" || { echo "no kernel headers in '$(KDIR)'" >&2; exit 1; }
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$(KREL)/updates/rdma_sroce.ko*
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KREL)

vmtest: deps rig-modules
	SROCE_CHECK_ONLY=guest bash scripts/check.sh

check: deps
	bash scripts/check.sh

check-long: deps
	SROCE_CHECK_LONG=1 bash scripts/check.sh

demo: deps rig-modules
	bash scripts/demo.sh

bench: deps rig-modules
	bash scripts/bench.sh

# where the CPU goes in both guests during ib_write_bw (scripts/profile.sh)
profile: deps rig-modules
	bash scripts/profile.sh

style:
	bash scripts/style.sh

# the rdma-sroce-dkms Debian package, in build/ (scripts/deb.sh)
deb:
	@bash scripts/deb.sh

clean:
	@test ! -d "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
