#!/bin/sh
# Packer step 2 (debian-kiln.pkr.hcl), as root, after the file provisioner copied the kiln binary to
# $KILN_UPLOAD. Debian's cloud image ships Debian's cloud-init package: `--replace` keeps the package (and
# Debian's /etc/cloud/cloud.cfg) and diverts its cloud-init and cloud-id to kiln, so that nothing depending on
# the package breaks and `kiln uninstall` can give the names back. Where the package is not installed (an image
# without it, or with kiln already), `--replace` changes nothing and kiln installs as it would without it.
# `cloud-init clean --logs` (kiln's now) forgets the boot the previous agent just did, so the next boot is a
# first boot for kiln.
set -eu

: "${KILN_UPLOAD:=/tmp/kiln-linux-x64}"

chmod 0755 "$KILN_UPLOAD"
# The stage units start their stage with nc (netcat-openbsd), as Debian's cloud-init 25.1 package does.
command -v nc >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends netcat-openbsd
"$KILN_UPLOAD" install --replace
rm -f "$KILN_UPLOAD"
cloud-init clean --logs
