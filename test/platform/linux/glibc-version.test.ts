// The running glibc's version, read from the banner in the read-only data of the libc this process maps.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { elfReadOnlyData, glibcVersionInImage, runningGlibcVersion } from '../../../src/platform/linux/glibc-version';

test('the running glibc version agrees with what process.report says', () => {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  assert.equal(runningGlibcVersion(), header?.glibcVersionRuntime);
  assert.match(runningGlibcVersion() ?? '', /^\d+\.\d+$/);
});

test('the version is read from the banner glibc carries, and absent without one', () => {
  const banner = Buffer.from(
    '\0\0GNU C Library (Debian GLIBC 2.36-9+deb12u13) stable release version 2.36.\nCopyright\0',
  );
  assert.equal(glibcVersionInImage(banner), '2.36');
  assert.equal(glibcVersionInImage(Buffer.from('musl libc (x86_64)\0Version 1.2.4\0')), undefined);
});

test('the read-only data of the running libc holds the banner, and a file that is not ELF has none', () => {
  const maps = readFileSync('/proc/self/maps', 'utf8');
  const libc = /\s(\/\S*\/libc(?:\.so\.6|-\d+\.\d+\.so))$/m.exec(maps)?.[1];
  assert.ok(libc, 'this process maps a glibc');
  const rodata = elfReadOnlyData(libc);
  assert.ok(rodata && rodata.length < readFileSync(libc).length / 4, 'only a part of the library is read');
  assert.equal(glibcVersionInImage(rodata), glibcVersionInImage(readFileSync(libc)));
  assert.equal(elfReadOnlyData('/proc/self/maps'), undefined);
});
