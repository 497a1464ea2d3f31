// The cloud-config keys of users, passwords and SSH access (users_groups, set_passwords, ssh, ssh_import_id,
// ssh_authkey_fingerprints, keys_to_console), as cloud-init 25.1's schema judges them.
import {
  anyOf,
  arrayOf,
  bool,
  changed,
  closedObject,
  deprecated,
  int,
  nonEmptyArrayOf,
  nonEmptyStrings,
  oneOf,
  renamed,
  str,
  stringEnum,
  strings,
} from './schema-builders';

/** A group's members: one name or a list of at least one name. */
const groupMembers = { type: ['string', 'array'], items: str, minItems: 1 } as const;

/** `groups`' mapping form: group name → members (upstream's groups_by_groupname). */
const groupsByName = { patternProperties: { '^.+$': groupMembers }, additionalProperties: false } as const;

/** One user as a mapping: it names a user (`name`) or a snap user (`snapuser`), never both. */
const userMapping = {
  oneOf: [{ required: ['name'] }, { required: ['snapuser'] }],
  additionalProperties: false,
  properties: {
    name: str,
    doas: nonEmptyStrings,
    expiredate: str,
    gecos: str,
    groups: oneOf(str, nonEmptyArrayOf({ type: ['string'] }), {
      type: 'object',
      patternProperties: {
        '^.+$': deprecated(
          { type: ['null'], minItems: 1 },
          '23.1',
          'The use of ``object`` type is deprecated. Use ``string`` or ``array`` of ``string`` instead.',
        ),
      },
    }),
    homedir: str,
    inactive: str,
    'lock-passwd': renamed(bool, '22.3', 'lock_passwd'),
    lock_passwd: bool,
    'no-create-home': renamed(bool, '24.2', 'no_create_home'),
    no_create_home: bool,
    'no-log-init': renamed(bool, '24.2', 'no_log_init'),
    no_log_init: bool,
    'no-user-group': renamed(bool, '24.2', 'no_user_group'),
    no_user_group: bool,
    passwd: str,
    'hashed-passwd': renamed(str, '24.2', 'hashed_passwd'),
    hashed_passwd: str,
    'plain-text-passwd': renamed(str, '24.2', 'plain_text_passwd'),
    plain_text_passwd: str,
    'create-groups': renamed(bool, '24.2', 'create_groups'),
    create_groups: bool,
    'primary-group': renamed(str, '24.2', 'primary_group'),
    primary_group: str,
    'selinux-user': renamed(str, '24.2', 'selinux_user'),
    selinux_user: str,
    shell: str,
    snapuser: str,
    ssh_authorized_keys: nonEmptyStrings,
    'ssh-authorized-keys': renamed(nonEmptyStrings, '18.3', 'ssh_authorized_keys'),
    'ssh-import-id': renamed(nonEmptyStrings, '24.2', 'ssh_import_id'),
    ssh_import_id: nonEmptyStrings,
    'ssh-redirect-user': renamed(bool, '24.2', 'ssh_redirect_user'),
    ssh_redirect_user: bool,
    system: bool,
    sudo: oneOf(
      { type: ['string', 'null'] },
      arrayOf({ type: ['string', 'null'] }),
      changed(bool, '22.2', 'The value ``false`` is deprecated for this key, use ``null`` instead.'),
    ),
    uid: oneOf(int, changed(str, '22.3', 'The use of ``string`` type is deprecated. Use an ``integer`` instead.')),
  },
} as const;

const userAsObject = { type: 'object', ...userMapping } as const;

/** A `chpasswd.users` entry: a name with a generated (RANDOM) password, or a name and a password. */
const chpasswdUser = {
  minItems: 1,
  type: 'object',
  ...anyOf(
    {
      required: ['name', 'type'],
      additionalProperties: false,
      properties: { name: str, type: { enum: ['RANDOM'], type: 'string' } },
    },
    {
      required: ['name', 'password'],
      additionalProperties: false,
      properties: { name: str, type: { enum: ['hash', 'text'], type: 'string' }, password: str },
    },
  ),
} as const;

const uniqueStrings = { type: 'array', items: str, uniqueItems: true } as const;

export const USERS_AND_ACCESS_KEYS = {
  // users_groups
  groups: {
    type: ['string', 'object', 'array'],
    ...groupsByName,
    items: { type: ['string', 'object'], ...groupsByName },
    minItems: 1,
  },
  user: oneOf(str, userAsObject),
  users: { type: ['string', 'array', 'object'], items: oneOf(str, strings, userAsObject) },
  // set_passwords
  ssh_pwauth: oneOf(bool, changed(str, '22.3', 'Use of non-boolean values for this field is deprecated.')),
  chpasswd: closedObject({
    expire: bool,
    users: arrayOf(chpasswdUser),
    list: deprecated(
      { ...oneOf(str, arrayOf({ type: 'string', pattern: '^.+:.+$' })), minItems: 1 },
      '22.2',
      'Use **users** instead.',
    ),
  }),
  password: str,
  // ssh
  ssh_keys: {
    type: 'object',
    patternProperties: { '^(ecdsa|ed25519|rsa)_(public|private|certificate)$': str },
    additionalProperties: false,
  },
  ssh_authorized_keys: { type: 'array', minItems: 1, items: str },
  ssh_deletekeys: bool,
  ssh_genkeytypes: { type: 'array', minItems: 1, items: stringEnum('ecdsa', 'ed25519', 'rsa') },
  disable_root: bool,
  disable_root_opts: str,
  allow_public_ssh_keys: bool,
  ssh_quiet_keygen: bool,
  ssh_publish_hostkeys: closedObject({ enabled: bool, blacklist: strings }),
  // ssh_import_id
  ssh_import_id: strings,
  // ssh_authkey_fingerprints
  no_ssh_fingerprints: bool,
  authkey_hash: str,
  // keys_to_console
  ssh: { ...closedObject({ emit_keys_to_console: bool }), required: ['emit_keys_to_console'] },
  ssh_key_console_blacklist: uniqueStrings,
  ssh_fp_console_blacklist: uniqueStrings,
} as const;
