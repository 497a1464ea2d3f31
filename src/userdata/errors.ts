// The error user-data processing reports: which part, and what is wrong with it.
import { KilnError, SubjectError } from '../util/errors';

/** A part of the user data that cannot be used as given; `part` names it (e.g. `user-data part-003 (cfg.yaml)`). */
export class UserDataError extends SubjectError {
  override readonly name = 'UserDataError';
}

/** A jinja template that cannot be rendered: names the template line. */
export class TemplateError extends KilnError {
  override readonly name = 'TemplateError';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}
