// How a source holds a temporary network (net/ephemeral) around its reads, and what the network's failures mean to a
// source.
import { EphemeralNetworkError, HostNetworkRefused } from '../net/ephemeral/ephemeral-network-error';
import type { EphemeralLease, EphemeralNetwork, EphemeralUpOptions } from '../net/ephemeral/ephemeral-network';
import { LeftToNetworkStage, SourceError } from './source-error';

/**
 * The lease cannot be taken here without touching a network that is not the target's (a --root sandbox in
 * the host's network namespace), or the source's config forbids one: the source is left to the init stage, not reported
 * as failed.
 */
export class EphemeralNetworkRefused extends LeftToNetworkStage {}

/**
 * ERR as a source sees it: a refused network leaves the source to the init stage, a failed one is the source's error.
 */
export function sourceErrorOfNetwork(err: unknown): unknown {
  if (!(err instanceof EphemeralNetworkError)) return err;
  const reason = err.message.slice(err.subject.length + 2);
  return err instanceof HostNetworkRefused
    ? new EphemeralNetworkRefused(err.subject, reason, { cause: err })
    : new SourceError(err.subject, reason, { cause: err });
}

/** A lease from NETWORK as OPTS ask, its failure in a source's terms. */
export async function ephemeralLease(network: EphemeralNetwork, opts?: EphemeralUpOptions): Promise<EphemeralLease> {
  try {
    return await network.up(opts);
  } catch (err) {
    throw sourceErrorOfNetwork(err);
  }
}

/**
 * Runs fn with a lease (as OPTS ask) held when NETWORK is given (released afterwards, even on error), or directly when
 * not.
 */
export async function withEphemeralNetwork<T>(
  network: EphemeralNetwork | undefined,
  fn: () => Promise<T>,
  opts?: EphemeralUpOptions,
): Promise<T> {
  if (!network) return fn();
  const lease = await ephemeralLease(network, opts);
  try {
    return await fn();
  } catch (err) {
    // A crawl that failed on IPv6 alone says so: the missing DHCPv4 lease is likely the real trouble.
    if (lease.state && err instanceof SourceError)
      throw new SourceError(
        err.subject,
        `${err.message.slice(err.subject.length + 2)} (${lease.state} on ${lease.interface}: no DHCPv4 lease)`,
        { cause: err },
      );
    throw err;
  } finally {
    await lease.release();
  }
}
