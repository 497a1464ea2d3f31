// kiln's own /etc/hosts templates per osfamily, used when /etc/cloud/templates/hosts.<family>.tmpl is absent.

const NOTE = [
  '# This file is managed by kiln because cloud-config sets manage_etc_hosts: true.',
  '# Changes are overwritten at boot; edit /etc/cloud/templates/hosts.{{family}}.tmpl',
  "# or turn 'manage_etc_hosts' off to keep your own.",
];

const DEBIAN_LIKE = ['127.0.1.1 {{fqdn}} {{hostname}}', '127.0.0.1 localhost', '', '# IPv6 loopback and multicast names', '::1 localhost ip6-localhost ip6-loopback', 'ff02::1 ip6-allnodes', 'ff02::2 ip6-allrouters'];
const REDHAT_LIKE = [
  '127.0.0.1 {{fqdn}} {{hostname}}', '127.0.0.1 localhost.localdomain localhost', '127.0.0.1 localhost4.localdomain4 localhost4', '',
  '::1 {{fqdn}} {{hostname}}', '::1 localhost.localdomain localhost', '::1 localhost6.localdomain6 localhost6',
];
const SUSE_LIKE = [
  '127.0.0.1 localhost', '127.0.1.1 {{fqdn}} {{hostname}}', '', '# IPv6 loopback and multicast names',
  '::1 localhost ipv6-localhost ipv6-loopback', 'fe00::0 ipv6-localnet', 'ff00::0 ipv6-mcastprefix', 'ff02::1 ipv6-allnodes', 'ff02::2 ipv6-allrouters', 'ff02::3 ipv6-allhosts',
];
const ALPINE_LIKE = ['127.0.1.1 {{fqdn}} {{hostname}}', '127.0.0.1 localhost.localdomain localhost', '::1 localhost ipv6-localhost ipv6-loopback'];
const ARCH_LIKE = ['127.0.1.1 {{fqdn}} {{hostname}}', '127.0.0.1 localhost.localdomain localhost', '::1 localhost.localdomain localhost'];

const BODIES: Record<string, string[]> = { debian: DEBIAN_LIKE, redhat: REDHAT_LIKE, suse: SUSE_LIKE, alpine: ALPINE_LIKE, arch: ARCH_LIKE };

/** The built-in hosts template for FAMILY (jinja subset), or undefined for a family kiln has none for. */
export function builtinHostsTemplate(family: string): string | undefined {
  const body = BODIES[family];
  if (!body) return undefined;
  return ['## template:jinja', ...NOTE.map((l) => l.replace('{{family}}', family)), ...body, ''].join('\n');
}
