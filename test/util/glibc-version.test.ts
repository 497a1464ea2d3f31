import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { glibcVersionInImage, runningGlibcVersion } from '../../src/util/glibc-version';

test('the running glibc version agrees with what process.report says', () => {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  assert.equal(runningGlibcVersion(), header?.glibcVersionRuntime);
  assert.match(runningGlibcVersion() ?? '', /^\d+\.\d+$/);
});

test('the version is read from the banner glibc carries, and absent without one', () => {
  const banner = Buffer.from('\0\0GNU C Library (Debian GLIBC 2.36-9+deb12u13) stable release version 2.36.\nCopyright\0');
  assert.equal(glibcVersionInImage(banner), '2.36');
  assert.equal(glibcVersionInImage(Buffer.from('musl libc (x86_64)\0Version 1.2.4\0')), undefined);
});
