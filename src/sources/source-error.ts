// The error of a datasource that was detected but could not be read (its own file: sources and the ephemeral network both throw it).
import { SubjectError } from '../util/errors';

/** A source that was detected but could not be read: names the source and what went wrong. */
export class SourceError extends SubjectError {
  override readonly name = 'SourceError';
}
