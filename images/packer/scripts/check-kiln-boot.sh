#!/bin/sh
# Packer step 4 (debian-kiln.pkr.hcl), as root, in the boot after the reboot. kiln's `status` follows
# cloud-init 26.x: 1 when a module or stage failed (stop the build), 2 when the boot only logged warnings or
# deprecations (a module named in Debian's cloud.cfg that kiln does not implement is one), 0 when clean; see
# README "Installing into an image (Packer)".
set -eu

# Still set: the reboot did not happen and this is the build VM's first boot.
test ! -e /run/kiln-packer-rebooting
cloud-init status --wait --long || [ $? -eq 2 ]
test "$(readlink -f /usr/bin/cloud-init)" = /usr/bin/kiln
