#!/bin/sh
# Packer step 1 (debian-kiln.pkr.hcl), as root in the build VM: the image's own cloud-init (Debian's package)
# runs this first boot from the build seed; let it finish before replacing it. Its `status` exits 2 for a boot
# with only warnings, which is no reason to stop here.
set -eu

cloud-init status --wait --long || [ $? -eq 2 ]
