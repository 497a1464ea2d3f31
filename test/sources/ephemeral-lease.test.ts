// A temporary network's failures reach a source in its own terms: a failed lease is the source's SourceError, a
// lease refused on the host's network leaves the source to the init stage (LeftToNetworkStage), as before the
// ephemeral network moved out of sources/ into net/ephemeral/.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EphemeralNetworkError, HostNetworkRefused } from '../../src/net/ephemeral/ephemeral-network-error';
import type { EphemeralNetwork } from '../../src/net/ephemeral/ephemeral-network';
import { EphemeralNetworkRefused, ephemeralLease, withEphemeralNetwork } from '../../src/sources/ephemeral-lease';
import { LeftToNetworkStage, SourceError } from '../../src/sources/source-error';

const failing = (err: Error): EphemeralNetwork => ({ up: async () => Promise.reject(err) });

test('a lease that fails is a SourceError with the same subject and message; the crawl never runs', async () => {
  let ran = false;
  await assert.rejects(
    withEphemeralNetwork(
      failing(new EphemeralNetworkError('ephemeral-dhcp', 'no DHCP answer on ens3')),
      async () => (ran = true),
    ),
    (e: unknown) =>
      e instanceof SourceError &&
      !(e instanceof LeftToNetworkStage) &&
      e.subject === 'ephemeral-dhcp' &&
      e.message === 'ephemeral-dhcp: no DHCP answer on ens3',
  );
  assert.equal(ran, false);
});

test("a lease refused on the host's network leaves the source to the init stage", async () => {
  await assert.rejects(
    ephemeralLease(failing(new HostNetworkRefused('ephemeral-dhcp', 'no temporary DHCP lease under --root /x'))),
    (e: unknown) =>
      e instanceof EphemeralNetworkRefused &&
      e instanceof LeftToNetworkStage &&
      e.message === 'ephemeral-dhcp: no temporary DHCP lease under --root /x',
  );
});

test("errors that are not the network's pass through unchanged", async () => {
  const own = new SourceError('Scaleway', 'refused by config');
  await assert.rejects(
    withEphemeralNetwork(failing(own), async () => 1),
    (e: unknown) => e === own,
  );
});
