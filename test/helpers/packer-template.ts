// The provisioners of a Packer template of images/packer/, read in order from its HCL: enough for the tests to
// find the scripts each step runs (and run them in a guest in the template's order) without packer itself.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface Provisioner {
  /** shell, file, powershell… */
  type: string;
  /** Absolute paths of the scripts it runs (`script`, or `scripts` in order), `${path.root}` resolved. */
  scripts: string[];
  /** `environment_vars`, each NAME=VALUE. */
  environmentVars: string[];
  /** Whether it has an `inline` list (the templates keep no logic inline). */
  inline: boolean;
  expectDisconnect: boolean;
  /** `execute_command` as written (a `local.…` reference or a quoted string), if set. */
  executeCommand?: string;
  /** A file provisioner's source and destination, as written (`var.…` left as it is). */
  source?: string;
  destination?: string;
}

/** The quoted strings of an HCL list value `[...]`. */
function strings(list: string): string[] {
  return [...list.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] as string).replace(/\\(.)/g, '$1'));
}

/** The provisioners of the template at PATH, in the order the build runs them. */
export function readProvisioners(path: string): Provisioner[] {
  const hcl = readFileSync(path, 'utf8');
  const root = dirname(path);
  const out: Provisioner[] = [];
  // Provisioner blocks hold no nested blocks in these templates, so the first closing brace on its own line ends one.
  for (const m of hcl.matchAll(/^\s*provisioner "([^"]+)" \{\n([\s\S]*?)\n\s*\}\n/gm)) {
    const body = m[2] as string;
    const attr = (name: string) => new RegExp(`^\\s*${name}\\s*=\\s*(.*)$`, 'm').exec(body)?.[1]?.trim();
    const path = (p: string) => resolve(root, p.replace('${path.root}', '.'));
    const one = attr('script');
    const many = /^\s*scripts\s*=\s*(\[[\s\S]*?\])/m.exec(body)?.[1];
    const quoted = (v: string | undefined) => (v === undefined ? undefined : (/^"(.*)"$/.exec(v)?.[1] ?? v));
    const source = quoted(attr('source'));
    const destination = quoted(attr('destination'));
    const executeCommand = attr('execute_command');
    out.push({
      type: m[1] as string,
      scripts: [...(one ? [quoted(one) as string] : []), ...(many ? strings(many) : [])].map(path),
      environmentVars: strings(/^\s*environment_vars\s*=\s*(\[[\s\S]*?\])/m.exec(body)?.[1] ?? '[]'),
      inline: /^\s*inline\s*=/m.test(body),
      expectDisconnect: attr('expect_disconnect') === 'true',
      ...(source !== undefined ? { source } : {}),
      ...(destination !== undefined ? { destination } : {}),
      ...(executeCommand !== undefined ? { executeCommand } : {}),
    });
  }
  return out;
}
