#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: boot two guests wired together, link sroce on each and show
# the devices, their GID tables and the traffic one receives from the other.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
exec bash "$repo/scripts/guest.sh" --pair --timeout 600 "$repo/scripts/tests/demo.sh"
