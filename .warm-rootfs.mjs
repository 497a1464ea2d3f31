import * as esbuild from 'esbuild';
await esbuild.build({ entryPoints: ['/work/main/test/helpers/debian-rootfs.ts'], outfile: '/tmp/debian-rootfs.mjs', bundle: true, platform: 'node', format: 'esm' });
const m = await import('/tmp/debian-rootfs.mjs');
const t = Date.now();
console.log(m.ensureDebianRootfs(), (Date.now() - t) / 1000, 's');
