// Files a boot of the build machine generated for that machine: SSH host keys, the sshd drop-in, network config, sudo
// rules.
import { expandGenerated, GENERATED_CONFIGS } from '../runner/clean-artifacts';
import type { Finding, ImageFiles } from './finding';

const SSH_DIR = '/etc/ssh';
/** Where cc_users_groups writes the sudo rules of the users it made. */
const SUDOERS_DROP_IN = '/etc/sudoers.d/90-cloud-init-users';

/**
 * DELETE_KEYS: the image's ssh_deletekeys (cc_ssh's default is on): whether each new instance replaces the host keys.
 */
export async function checkGeneratedConfigs(files: ImageFiles, deleteKeys: boolean): Promise<Finding[]> {
  const out: Finding[] = [];
  const hostKeys = (await files.listDir(SSH_DIR).catch(() => [] as string[]))
    .filter((n) => /^ssh_host_.*_key$/.test(n))
    .sort();
  if (hostKeys.length > 0) {
    out.push({
      check: 'ssh-host-keys',
      severity: deleteKeys ? 'warning' : 'error',
      path: SSH_DIR,
      message: deleteKeys
        ? `SSH host private keys ship in the image (${hostKeys.join(', ')}); each instance replaces them at its first boot (ssh_deletekeys), but anyone with the image has them`
        : `SSH host keys are in the image (${hostKeys.join(', ')}) and ssh_deletekeys is off: every instance would share them`,
      fix: `rm ${SSH_DIR}/ssh_host_*`,
    });
  }
  for (const path of await expandGenerated(files, GENERATED_CONFIGS.ssh_config[0] as string)) {
    const text = (await files.readTextIfExists(path)) ?? '';
    const passwords = /^\s*PasswordAuthentication\s+yes\b/im.test(text);
    out.push({
      check: 'sshd-drop-in',
      severity: 'error',
      path,
      message: `${path} is the build's per-instance sshd setting${passwords ? ', and it turns SSH password login on' : ''}: it wins over sshd_config in every instance`,
      fix: 'cloud-init clean --configs ssh_config',
    });
  }
  const network: string[] = [];
  for (const pattern of GENERATED_CONFIGS.network) network.push(...(await expandGenerated(files, pattern)));
  if (network.length > 0) {
    out.push({
      check: 'network-config',
      severity: 'warning',
      path: network[0] as string,
      message: `the build's network config is left (${network.join(', ')}): it names the build machine's interfaces until the first boot renders new config`,
      fix: 'cloud-init clean --configs network',
    });
  }
  if (await files.exists(SUDOERS_DROP_IN)) {
    out.push({
      check: 'sudo-rules',
      severity: 'warning',
      path: SUDOERS_DROP_IN,
      message: `${SUDOERS_DROP_IN} holds the sudo rules of the build's users: they stay in every instance`,
      fix: `rm ${SUDOERS_DROP_IN}`,
    });
  }
  return out;
}
