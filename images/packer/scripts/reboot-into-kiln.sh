#!/bin/sh
# Packer step 3 (debian-kiln.pkr.hcl), as root: boot once with kiln, since the image is only worth capturing if
# kiln brings it up. The mark in /run (a tmpfs) tells the next step whether it really runs in the new boot.
set -eu

touch /run/kiln-packer-rebooting
systemctl reboot
