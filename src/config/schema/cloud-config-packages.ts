// The cloud-config keys of packages and their sources (apt_configure, apt_pipelining, apk_configure,
// package_update_upgrade_install, snap, yum_add_repo, zypper_add_repo), as cloud-init 25.1's schema judges them.
import {
  arrayOf,
  bool,
  closedObject,
  deprecated,
  enumOf,
  int,
  nonEmptyArrayOf,
  nonEmptyStrings,
  oneOf,
  renamed,
  str,
  strings,
} from './schema-builders';

/** An apt mirror list (`primary`, `security`): per architectures, a URI or mirrors to search. */
const aptMirrors = nonEmptyArrayOf({
  type: 'object',
  required: ['arches'],
  additionalProperties: false,
  properties: {
    arches: nonEmptyStrings,
    uri: str,
    search: nonEmptyStrings,
    search_dns: bool,
    keyid: str,
    key: str,
    keyserver: str,
  },
});

const apt = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    preserve_sources_list: bool,
    disable_suites: { type: 'array', items: str, minItems: 1, uniqueItems: true },
    primary: aptMirrors,
    security: aptMirrors,
    add_apt_repo_match: str,
    debconf_selections: {
      type: 'object',
      minProperties: 1,
      additionalProperties: false,
      patternProperties: { '^.+$': str },
    },
    sources_list: str,
    conf: str,
    https_proxy: str,
    http_proxy: str,
    proxy: str,
    ftp_proxy: str,
    sources: {
      type: 'object',
      additionalProperties: false,
      patternProperties: {
        '^.+$': {
          ...closedObject({ source: str, keyid: str, key: str, keyserver: str, filename: str, append: bool }),
          minProperties: 1,
        },
      },
    },
  },
} as const;

/** A package: a name, or a name and a version. */
const packageItem = oneOf({ type: 'array', items: str, minItems: 2, maxItems: 2 }, str);

/** A snap command: a command line or its argv. */
const snapCommand = oneOf(str, strings);

export const PACKAGE_KEYS = {
  apt,
  apt_pipelining: oneOf(int, bool, {
    type: 'string',
    ...oneOf(enumOf('os'), deprecated(enumOf('none', 'unchanged'), '22.4', 'Use **os** instead.')),
  }),
  apk_repos: {
    type: 'object',
    minProperties: 1,
    additionalProperties: false,
    properties: {
      preserve_repositories: bool,
      alpine_repo: {
        type: ['object', 'null'],
        additionalProperties: false,
        properties: { base_url: str, community_enabled: bool, testing_enabled: bool, version: str },
        required: ['version'],
        minProperties: 1,
      },
      local_repo_base_url: str,
    },
  },
  packages: nonEmptyArrayOf(
    oneOf(closedObject({ apt: arrayOf(packageItem), snap: arrayOf(packageItem) }), packageItem),
  ),
  package_update: bool,
  package_upgrade: bool,
  package_reboot_if_required: bool,
  apt_update: renamed(bool, '22.2', 'package_update'),
  apt_upgrade: renamed(bool, '22.2', 'package_upgrade'),
  apt_reboot_if_required: renamed(bool, '22.2', 'package_reboot_if_required'),
  snap: {
    type: 'object',
    minProperties: 1,
    additionalProperties: false,
    properties: {
      assertions: {
        type: ['object', 'array'],
        items: str,
        minItems: 1,
        minProperties: 1,
        uniqueItems: true,
        additionalProperties: str,
      },
      commands: {
        type: ['object', 'array'],
        items: snapCommand,
        minItems: 1,
        minProperties: 1,
        additionalProperties: snapCommand,
      },
    },
  },
  yum_repo_dir: str,
  yum_repos: {
    type: 'object',
    minProperties: 1,
    additionalProperties: false,
    patternProperties: {
      '^[0-9a-zA-Z -_]+$': {
        type: 'object',
        additionalProperties: false,
        properties: { baseurl: str, metalink: str, mirrorlist: str, name: str, enabled: bool },
        patternProperties: { '^[0-9a-zA-Z_]+$': oneOf(int, bool, str) },
        anyOf: [{ required: ['baseurl'] }, { required: ['metalink'] }, { required: ['mirrorlist'] }],
      },
    },
  },
  zypper: {
    type: 'object',
    minProperties: 1,
    additionalProperties: true,
    properties: {
      repos: nonEmptyArrayOf({
        type: 'object',
        additionalProperties: true,
        properties: { id: str, baseurl: str },
        required: ['id', 'baseurl'],
      }),
      config: { type: 'object' },
    },
  },
} as const;
