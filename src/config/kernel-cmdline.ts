// Reads what cloud-init takes from the kernel command line: `cc: … end_cc` config and the `cloud-init=` switch.
import { parseYamlConfig, type ConfigMap } from './parse-yaml-config';

export interface KernelCmdlineFacts {
  /** The merged `cc: … end_cc` blocks, or undefined when there are none. */
  cloudConfig: ConfigMap | undefined;
  /** `cloud-init=disabled` was given. */
  disabled: boolean;
  /** `cloud-init=enabled` was given (overrides the generator's detection). */
  enabled: boolean;
}

/** The text of every `cc:` … `end_cc` block, joined by newlines, with `\n` escapes turned into new lines. */
export function cloudConfigText(cmdline: string): string | undefined {
  const tokens = cmdline.trim().split(/\s+/).filter(Boolean);
  const blocks: string[] = [];
  let current: string[] | undefined;
  for (const token of tokens) {
    if (current === undefined) {
      if (token === 'cc:' || token.startsWith('cc:')) {
        current = [];
        const rest = token.slice(3);
        if (rest) current.push(rest);
      }
      continue;
    }
    if (token === 'end_cc') {
      blocks.push(current.join(' '));
      current = undefined;
      continue;
    }
    current.push(token);
  }
  // An unterminated block runs to the end of the line, as cloud-init reads it.
  if (current !== undefined) blocks.push(current.join(' '));
  if (blocks.length === 0) return undefined;
  return blocks.map((b) => b.replace(/\\n/g, '\n')).join('\n');
}

export function parseKernelCmdline(cmdline: string): KernelCmdlineFacts {
  const text = cloudConfigText(cmdline);
  const words = cmdline.trim().split(/\s+/);
  const switchValue = words
    .filter((w) => w.startsWith('cloud-init='))
    .pop()
    ?.slice('cloud-init='.length);
  return {
    cloudConfig: text === undefined ? undefined : parseYamlConfig(text, 'kernel command line (cc: … end_cc)'),
    disabled: switchValue === 'disabled',
    enabled: switchValue === 'enabled',
  };
}
