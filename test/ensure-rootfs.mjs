// Builds (once) the cached Debian rootfs that the parity tests and `npm run demo` use, and prints its path:
// bookworm's, or the release named as the argument (`node test/ensure-rootfs.mjs trixie`).
import { join } from 'node:path';
import { bundleTests, repo } from './bundle.mjs';

const [built] = await bundleTests(
  [join(repo, 'test', 'helpers', 'debian-rootfs.ts')],
  join(repo, '.build', 'ensure-rootfs'),
);
const { ensureDebianRootfs } = await import(built);
console.log(ensureDebianRootfs(process.argv[2] ?? 'bookworm'));
