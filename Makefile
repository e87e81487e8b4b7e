# SPDX-License-Identifier: GPL-2.0
#
# Top-level entry points.  `make` builds rdma_sroce.ko against Debian's 6.12
# headers; the other targets run KUnit, the guest tests and the demo.

KVER ?= $(shell find /lib/modules -maxdepth 1 -name '6.12.*-amd64' -printf '%f\n' 2>/dev/null | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: all modules deps kunit vmtest check check-long demo bench profile clean style deb

all: modules

deps:
	@bash scripts/deps.sh >/dev/null

modules:
	@test -d "$(KDIR)" || { echo "no kernel headers in '$(KDIR)': run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_RDMA_SROCE=m modules

kunit: deps
	bash scripts/kunit.sh

vmtest: deps modules
	SROCE_CHECK_ONLY=guest bash scripts/check.sh

check: deps
	bash scripts/check.sh

check-long: deps
	SROCE_CHECK_LONG=1 bash scripts/check.sh

demo: deps modules
	bash scripts/demo.sh

bench: deps modules
	bash scripts/bench.sh

# where the CPU goes in both guests during ib_write_bw (scripts/profile.sh)
profile: deps modules
	bash scripts/profile.sh

style:
	bash scripts/style.sh

# the rdma-sroce-dkms Debian package, in build/ (scripts/deb.sh)
deb:
	@bash scripts/deb.sh

clean:
	@test ! -d "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
