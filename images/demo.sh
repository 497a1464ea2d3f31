#!/usr/bin/env bash
# `npm run demo`: builds the Linux binary and boots it (`cloud-init --all-stages`) on the example NoCloud seed in
# a sandbox root. As root with debootstrap (the Debian rootfs is built once and cached), the boot is real: the rootfs is
# copied, kiln is installed into it with `kiln install --root --replace` and run under unshare + chroot. Otherwise (no root), the boot
# runs with --dry-run on an empty sandbox root and prints every effect it would have.
set -euo pipefail
cd "$(dirname "$0")/.."
node build.mjs linux-x64
BIN="$PWD/dist/kiln-linux-x64"
SEED="$PWD/images/examples/nocloud-seed"
ROOT="${KILN_DEMO_ROOT:-$(mktemp -d /tmp/kiln-demo.XXXXXX)}"
ROOTFS="${KILN_ROOTFS_CACHE:-/var/cache/kiln-test}/bookworm-cloud-init"
echo "sandbox root: $ROOT"

# As root with debootstrap, build the Debian rootfs once (about a minute) so the boot below is a real one.
if [ "${KILN_DEMO_DRY_RUN:-0}" != 1 ] && [ "$(id -u)" = 0 ] && [ ! -f "$ROOTFS/.kiln-rootfs-ok" ] && command -v debootstrap >/dev/null; then
  echo "== building the cached Debian rootfs (once)"
  node test/ensure-rootfs.mjs
fi

if [ "${KILN_DEMO_DRY_RUN:-0}" != 1 ] && [ "$(id -u)" = 0 ] && [ -f "$ROOTFS/.kiln-rootfs-ok" ] && command -v unshare >/dev/null; then
  echo "== copying the cached Debian rootfs and installing kiln into it (kiln install --root, as README says)"
  cp -a --reflink=auto "$ROOTFS/." "$ROOT/"
  # The cached rootfs carries Debian's cloud-init (the parity oracle): --replace takes over its names.
  "$BIN" install --root "$ROOT" --replace
  mkdir -p "$ROOT/var/lib/cloud/seed/nocloud"
  cp "$SEED"/* "$ROOT/var/lib/cloud/seed/nocloud/"
  in_root() { unshare --uts --ipc --mount --pid --net --fork --kill-child chroot "$ROOT" "$@"; }
  echo "== cloud-init --all-stages"
  time in_root /usr/bin/cloud-init --all-stages || true
  echo "== cloud-init status --long"
  in_root /usr/bin/cloud-init status --long || true
  echo "== cloud-init query v1"
  in_root /usr/bin/cloud-init query v1
  echo "== what the example seed did"
  cat "$ROOT/etc/kiln-example.txt" "$ROOT/var/tmp/kiln-example-runcmd"
  grep '^builder:' "$ROOT/etc/passwd"
  echo "== cloud-init analyze blame (top 5)"
  in_root /usr/bin/cloud-init analyze blame | head -7
else
  echo "== no root or no cached Debian rootfs: a dry run of every stage on an empty sandbox root"
  mkdir -p "$ROOT/var/lib/cloud/seed/nocloud"
  cp "$SEED"/* "$ROOT/var/lib/cloud/seed/nocloud/"
  KILN_FACE=cloud-init "$BIN" --root "$ROOT" --dry-run --all-stages | tee "$ROOT/dry-run.txt" | grep -E "^dry run|write /etc|write /var/lib/cloud/instances/[^/]+/(scripts|sem)/|run " || true
  echo "(full list of effects: $ROOT/dry-run.txt)"
fi
