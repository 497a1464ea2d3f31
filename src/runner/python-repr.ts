// Module errors as cloud-init lists them in status.json and result.json: the Python repr of (module, exception).
import { CommandError } from '../util/command-error';
import { describeError } from '../util/errors';
import { processExecutionMessage } from '../util/process-execution-message';
import { pyStrRepr } from '../util/python-str-repr';

/** "('locale', ProcessExecutionError(\"…\"))": what cloud-init appends to a stage's errors when a module raises. */
export function moduleErrorRepr(module: string, err: unknown, canonical = module): string {
  if (err instanceof CommandError)
    return `(${pyStrRepr(module)}, ProcessExecutionError(${pyStrRepr(processExecutionMessage(err.failure))}))`;
  // An error may name the Python exception cloud-init raises in its place (pythonName).
  const py = err !== null && typeof err === 'object' ? (err as { pythonName?: unknown }).pythonName : undefined;
  const name = typeof py === 'string' ? py : err instanceof Error ? err.name : 'Exception';
  const why = describeError(err);
  return `(${pyStrRepr(module)}, ${name}(${pyStrRepr(why.startsWith(`${canonical}: `) ? why.slice(canonical.length + 2) : why)}))`;
}
