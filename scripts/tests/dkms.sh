#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package, installed the way an administrator would, in one
# guest (its root is a throwaway overlay of the host's, with dkms and the
# 6.12 headers from scripts/deps.sh):
#  - `make deb` builds rdma-sroce-dkms from the read-only tree;
#  - dpkg -i installs it and DKMS builds and installs rdma_sroce for the
#    running kernel (under TCG this compile takes minutes: make
#    check-long);
#  - `rdma link add` loads the DKMS-built module on demand, and
#    ibv_rc_pingpong --chk runs between two links over a veth pair;
#  - taken out of the kernel, the module comes back through the hook that
#    Debian's kernel packages run on a kernel update;
#  - apt-get remove unloads the module, removing the links, and takes the
#    module out of the kernel's tree and DKMS's.
# No sroce_load: the repo's own module must not be what is found.
set -u
# shellcheck source=scripts/tests/sroce-lib.sh
. "$SROCE_REPO/scripts/tests/sroce-lib.sh"

t_plan 14
kver=$(uname -r)
debdir=/tmp/deb

sroce_builtin && fail "sroce is built into this kernel: nothing to package"
modprobe ib_uverbs || fail "modprobe ib_uverbs"
t_check "no rdma_sroce in the kernel's module tree before" bash -c '! modinfo -n rdma_sroce'
t_check "make deb builds the package from the read-only tree" bash -c \
	"SROCE_DEB_DIR=$debdir make -s -C '$SROCE_REPO' deb >/tmp/deb.log 2>&1"
log "make deb: $(tr '\n' ' ' </tmp/deb.log)"
deb=$(find $debdir -name 'rdma-sroce-dkms_*_all.deb' 2>/dev/null | head -n 1)
ver=$(dpkg-deb -f "$deb" Version 2>/dev/null)
log "package: ${deb##*/}, version $ver"
t_check "it holds dkms.conf with its version, and the sources" bash -c \
	"dpkg-deb --fsys-tarfile '$deb' | tar -xO './usr/src/rdma-sroce-$ver/dkms.conf' |
		grep -qx 'PACKAGE_VERSION=\"$ver\"' &&
	 dpkg-deb -c '$deb' | grep -q '/usr/src/rdma-sroce-$ver/drivers/sroce/qp.c\$'"
t0=$SECONDS
t_check "dpkg -i installs it; DKMS builds the module for $kver" \
	bash -c "dpkg -i '$deb' >/tmp/dpkg-install.log 2>&1"
log "install and build: $((SECONDS - t0)) s; $(tail -n 3 /tmp/dpkg-install.log | tr '\n' ' ')"
t_check "dkms status: rdma-sroce $ver installed for $kver" bash -c \
	"dkms status -m rdma-sroce -v '$ver' -k '$kver' | grep -q ': installed'"
t_check "modinfo finds the DKMS-built module" bash -c \
	"modinfo -n rdma_sroce | grep -q '^/lib/modules/$kver/updates/dkms/rdma_sroce.ko'"

# veth_links adds the links: the module is loaded by the first one
t_check "rdma link add loads the module on demand and brings two links up" veth_links
# the only rdma_sroce the kernel's tree has, so the one loaded
t_check "the loaded module is the DKMS build, the only one for $kver" bash -c \
	"[ -d /sys/module/rdma_sroce ] &&
	 [ \"\$(find /lib/modules/$kver -name 'rdma_sroce.ko*')\" = \"\$(modinfo -n rdma_sroce)\" ]"
ga=$(gid_index sroce1 "$(v4_gid 198.51.100.11)" "RoCE v2")
gb=$(gid_index sroce2 "$(v4_gid 198.51.100.12)" "RoCE v2")
ip netns exec ns2 timeout 60 ibv_rc_pingpong -d sroce2 -g "$gb" -s 4096 -n 50 --chk \
	>/tmp/pp.srv 2>&1 &
srv=$!
wait_for 20 bash -c "ip netns exec ns2 ss -ltn | grep -q ':18515 '"
ip netns exec ns1 timeout 60 ibv_rc_pingpong -d sroce1 -g "$ga" -s 4096 -n 50 --chk 198.51.100.12 \
	>/tmp/pp.cli 2>&1
rc=$?
wait "$srv" || rc=1
t_status "ibv_rc_pingpong --chk over the DKMS module" "$rc" "$(tail -n 2 /tmp/pp.cli /tmp/pp.srv | tr '\n' ' ')"
log "pingpong: $(tail -n 1 /tmp/pp.cli)"

# a kernel update: the kernel's package runs DKMS's hook for the new
# kernel; taken out of this one, the module must come back the same way
dkms uninstall -m rdma-sroce -v "$ver" -k "$kver" >/tmp/dkms-uninstall.log 2>&1 ||
	log "dkms uninstall: $(tail -n 2 /tmp/dkms-uninstall.log | tr '\n' ' ')"
t_check "uninstalled from $kver, the module is gone from its tree" \
	bash -c '! modinfo -n rdma_sroce 2>/dev/null'
t_check "the kernel-install hook (/etc/kernel/postinst.d/dkms) installs it again" bash -c \
	"/etc/kernel/postinst.d/dkms '$kver' >/tmp/dkms-hook.log 2>&1 &&
	 dkms status -m rdma-sroce -v '$ver' -k '$kver' | grep -q ': installed' &&
	 modinfo -n rdma_sroce | grep -q '/updates/dkms/rdma_sroce.ko'"
log "hook: $(tail -n 3 /tmp/dkms-hook.log | tr '\n' ' ')"

t_check "apt-get remove removes the package" bash -c \
	"apt-get remove -y rdma-sroce-dkms >/tmp/apt-remove.log 2>&1"
log "apt-get remove: $(tail -n 8 /tmp/apt-remove.log | tr '\n' ' ')"
log "dkms status after: $(dkms status 2>&1 | tr '\n' ' ')"
t_check "the module is unloaded and the links are gone" bash -c \
	"[ ! -d /sys/module/rdma_sroce ] && [ -z \"\$(ls /sys/class/infiniband)\" ]"
t_check "neither the kernel's tree nor DKMS has the module any more" bash -c \
	"! modinfo -n rdma_sroce 2>/dev/null && ! dkms status -m rdma-sroce | grep -q ."
ip netns del ns1
ip netns del ns2
t_done
