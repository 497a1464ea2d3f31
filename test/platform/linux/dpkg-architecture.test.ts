// dpkg's architecture from the target's ELF header, checked against dpkg itself and a table of machines.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { debianArchOfElf } from '../../../src/platform/linux/dpkg-architecture';
import { hasCommand, need } from '../../helpers/requirements';

/** An ELF header: class (1/2), data (1 LE / 2 BE), e_machine and e_flags, the rest zero. */
function elf(is64: boolean, little: boolean, machine: number, flags = 0): Uint8Array {
  const b = new Uint8Array(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, is64 ? 2 : 1, little ? 1 : 2, 1]);
  const v = new DataView(b.buffer);
  v.setUint16(18, machine, little);
  v.setUint32(is64 ? 48 : 36, flags, little);
  return b;
}

test('each machine kiln names maps to its Debian architecture; others are left to dpkg', () => {
  assert.equal(debianArchOfElf(elf(true, true, 62)), 'amd64');
  assert.equal(debianArchOfElf(elf(false, true, 62)), 'x32');
  assert.equal(debianArchOfElf(elf(false, true, 3)), 'i386');
  assert.equal(debianArchOfElf(elf(true, true, 183)), 'arm64');
  assert.equal(debianArchOfElf(elf(false, true, 40, 0x05000400)), 'armhf');
  assert.equal(debianArchOfElf(elf(false, true, 40, 0x05000200)), 'armel');
  assert.equal(debianArchOfElf(elf(true, true, 21)), 'ppc64el');
  assert.equal(debianArchOfElf(elf(true, false, 21)), 'ppc64');
  assert.equal(debianArchOfElf(elf(true, false, 22)), 's390x');
  assert.equal(debianArchOfElf(elf(true, true, 243)), 'riscv64');
  assert.equal(debianArchOfElf(elf(true, true, 258)), 'loong64');
  assert.equal(debianArchOfElf(elf(false, true, 8)), undefined, "MIPS ABIs are dpkg's to name");
  assert.equal(debianArchOfElf(new TextEncoder().encode('#!/bin/sh\necho amd64\n'.padEnd(64))), undefined);
});

test("the host's dpkg binary gives what dpkg --print-architecture prints", (t) => {
  if (!need(t, hasCommand('dpkg'), 'dpkg')) return;
  const printed = spawnSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).stdout.trim();
  assert.equal(debianArchOfElf(readFileSync('/usr/bin/dpkg')), printed);
});
