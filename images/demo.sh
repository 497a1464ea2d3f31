#!/usr/bin/env bash
# `npm run demo`: builds the Linux binary and runs it end to end on the example seed in a sandbox root.
set -euo pipefail
cd "$(dirname "$0")/.."
node build.mjs linux-x64
ROOT="${KILN_DEMO_ROOT:-$(mktemp -d /tmp/kiln-demo.XXXXXX)}"
mkdir -p "$ROOT/var/lib/cloud/seed/nocloud"
cp images/examples/nocloud-seed/* "$ROOT/var/lib/cloud/seed/nocloud/"
echo "sandbox root: $ROOT"
./dist/kiln-linux-x64 --root "$ROOT" version --long
./dist/kiln-linux-x64 --root "$ROOT" --dry-run devel write-file /etc/kiln-demo --content "hello from kiln"
./dist/kiln-linux-x64 --root "$ROOT" devel show-config --format json | head -20
