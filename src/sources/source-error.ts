// The error of a datasource that was detected but could not be read (its own file: sources and the ephemeral network
// both throw it).
import { SubjectError } from '../util/errors';
import type { HttpError } from '../util/http';

/** A source that was detected but could not be read: names the source and what went wrong. */
export class SourceError extends SubjectError {
  override readonly name = 'SourceError';
}

/**
 * A source that can be read, but not in this stage: the local stage leaves it to the network stage (NoCloud's http
 * seedfrom, which cloud-init's local NoCloud does not support and NoCloudNet reads; a network source whose ephemeral
 * network was refused). Not a failure: cloud-init's get_data returns False with a debug line.
 */
export class LeftToNetworkStage extends SourceError {}

/** SOURCE's error for a request that failed for good (its retries or its wait budget spent). */
export function sourceErrorOfHttp(source: string, err: HttpError): SourceError {
  return new SourceError(source, `${err.kind === 'budget' ? 'wait budget ran out' : err.kind}: ${err.message}`, {
    cause: err,
  });
}
