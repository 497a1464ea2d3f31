#!/bin/sh
# Packer step 5 (debian-kiln.pkr.hcl), as root, the last before capture: no build password, no password logins
# over SSH, and no trace of this boot, so that each VM made from the image has its own first boot and its own
# machine-id. Last, `kiln check` reads the image as it will be captured: 1 (an error: a password, a machine id,
# a unit not enabled…) stops the build; 2 only printed warnings (the host keys each instance replaces, the
# default user's sudo rule).
set -eu

# The account the build seed gave a password, which Packer logged in as.
: "${BUILD_USER:=debian}"

passwd --lock "$BUILD_USER"
# sshd_config's own line says no, commented out or not (Debian's default file has only `#PasswordAuthentication
# yes`, and sshd's default is yes); appended when the file has none.
sed -i -E 's/^#?[[:space:]]*PasswordAuthentication[[:space:]].*$/PasswordAuthentication no/' /etc/ssh/sshd_config
grep -q '^PasswordAuthentication no$' /etc/ssh/sshd_config || echo 'PasswordAuthentication no' >> /etc/ssh/sshd_config
# The seed's ssh_pwauth turned password logins on in sshd_config.d/50-cloud-init.conf, which sshd reads before
# sshd_config's line: --configs ssh_config removes it. --configs network removes the build VM's rendered network
# config (each instance's first boot renders its own).
cloud-init clean --logs --machine-id --configs ssh_config network
kiln check || [ $? -eq 2 ]
