// kiln's own templates for images without cloud-init's /etc/cloud/templates: /etc/hosts per osfamily, apt sources.list
// for Debian and Ubuntu.

const NOTE = [
  '# This file is managed by kiln because cloud-config sets manage_etc_hosts: true.',
  '# Changes are overwritten at boot; edit /etc/cloud/templates/hosts.{{family}}.tmpl',
  "# or turn 'manage_etc_hosts' off to keep your own.",
];

const DEBIAN_LIKE = [
  '127.0.1.1 {{fqdn}} {{hostname}}',
  '127.0.0.1 localhost',
  '',
  '# IPv6 loopback and multicast names',
  '::1 localhost ip6-localhost ip6-loopback',
  'ff02::1 ip6-allnodes',
  'ff02::2 ip6-allrouters',
];
const REDHAT_LIKE = [
  '127.0.0.1 {{fqdn}} {{hostname}}',
  '127.0.0.1 localhost.localdomain localhost',
  '127.0.0.1 localhost4.localdomain4 localhost4',
  '',
  '::1 {{fqdn}} {{hostname}}',
  '::1 localhost.localdomain localhost',
  '::1 localhost6.localdomain6 localhost6',
];
const SUSE_LIKE = [
  '127.0.0.1 localhost',
  '127.0.1.1 {{fqdn}} {{hostname}}',
  '',
  '# IPv6 loopback and multicast names',
  '::1 localhost ipv6-localhost ipv6-loopback',
  'fe00::0 ipv6-localnet',
  'ff00::0 ipv6-mcastprefix',
  'ff02::1 ipv6-allnodes',
  'ff02::2 ipv6-allrouters',
  'ff02::3 ipv6-allhosts',
];
const ALPINE_LIKE = [
  '127.0.1.1 {{fqdn}} {{hostname}}',
  '127.0.0.1 localhost.localdomain localhost',
  '::1 localhost ipv6-localhost ipv6-loopback',
];
const ARCH_LIKE = [
  '127.0.1.1 {{fqdn}} {{hostname}}',
  '127.0.0.1 localhost.localdomain localhost',
  '::1 localhost.localdomain localhost',
];

const BODIES: Record<string, string[]> = {
  debian: DEBIAN_LIKE,
  redhat: REDHAT_LIKE,
  suse: SUSE_LIKE,
  alpine: ALPINE_LIKE,
  arch: ARCH_LIKE,
};

/** The built-in hosts template for FAMILY (jinja subset), or undefined for a family kiln has none for. */
export function builtinHostsTemplate(family: string): string | undefined {
  const body = BODIES[family];
  if (!body) return undefined;
  return ['## template:jinja', ...NOTE.map((l) => l.replace('{{family}}', family)), ...body, ''].join('\n');
}

/*
 * sources.list for Debian, written from Debian's archive layout and matching, entry for entry, what
 * cloud-init 22.4 (bookworm's package) renders with its own template: main only, a deb-src under each deb,
 * the security archive on its own mirror, then -updates and -backports. Releases up to buster name the
 * security suite <codename>/updates; bullseye and later <codename>-security.
 */
const DEBIAN_SOURCES = [
  '## template:jinja',
  '# Written by kiln on first boot from its built-in Debian template, because the image has no',
  '# /etc/cloud/templates/sources.list.debian.tmpl. Set apt: preserve_sources_list: true to keep your own,',
  '# put extra sources in /etc/apt/sources.list.d, or provide that template file.',
  '{% set security_suite = codename ~ ("/updates" if codename in ("jessie", "stretch", "buster") else "-security") %}',
  'deb {{mirror}} {{codename}} main',
  'deb-src {{mirror}} {{codename}} main',
  '',
  'deb {{security}} {{security_suite}} main',
  'deb-src {{security}} {{security_suite}} main',
  'deb {{mirror}} {{codename}}-updates main',
  'deb-src {{mirror}} {{codename}}-updates main',
  '',
  'deb {{mirror}} {{codename}}-backports main',
  'deb-src {{mirror}} {{codename}}-backports main',
  '',
];

/*
 * sources.list for Ubuntu: the release, -updates and -backports pockets from the primary mirror and -security
 * from the security mirror, each with main, restricted, universe and multiverse, source lines left commented
 * out — the same archives and components as cloud-init 22.4's Ubuntu template enables.
 */
const UBUNTU_SOURCES = [
  '## template:jinja',
  '# Written by kiln on first boot from its built-in Ubuntu template, because the image has no',
  '# /etc/cloud/templates/sources.list.ubuntu.tmpl. Set apt: preserve_sources_list: true to keep your own,',
  '# put extra sources in /etc/apt/sources.list.d, or provide that template file.',
  ...['', '-updates', '-backports'].flatMap((pocket) => [
    `deb {{mirror}} {{codename}}${pocket} main restricted universe multiverse`,
    `# deb-src {{mirror}} {{codename}}${pocket} main restricted universe multiverse`,
  ]),
  'deb {{security}} {{codename}}-security main restricted universe multiverse',
  '# deb-src {{security}} {{codename}}-security main restricted universe multiverse',
  '',
];

const SOURCES_BODIES: Record<string, string[]> = { debian: DEBIAN_SOURCES, ubuntu: UBUNTU_SOURCES };

/** The built-in sources.list template for DISTRO (jinja subset), or undefined for a distro kiln has none for. */
export function builtinSourcesListTemplate(distro: string): string | undefined {
  return SOURCES_BODIES[distro]?.join('\n');
}
