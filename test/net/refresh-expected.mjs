// `node test/net/refresh-expected.mjs [case…]`: rewrites the network fixtures' expected/ files from cloud-init
// 25.1's net-convert in the trixie rootfs (test/net/refresh-expected.ts). Needs root, as the parity tests do.
import { join } from 'node:path';
import { bundleTests, repo } from '../bundle.mjs';

const [built] = await bundleTests(
  [join(repo, 'test', 'net', 'refresh-expected.ts')],
  join(repo, '.build', 'refresh-expected'),
);
const { refreshExpected } = await import(built);
refreshExpected(process.argv.slice(2));
