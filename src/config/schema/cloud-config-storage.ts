// The cloud-config keys of disks, filesystems and mounts (disk_setup, mounts, growpart, resizefs), as cloud-init
// 25.1's schema judges them.
import {
  anyOf,
  bool,
  changed,
  closedObject,
  enumOf,
  int,
  mapOf,
  nul,
  oneOf,
  str,
  stringEnum,
  strings,
} from './schema-builders';

/** A swap size: `auto`, bytes, or a number with a unit (`1.5G`). */
const sizeWithUnit = { type: 'string', pattern: '^([0-9]+)?\\.?[0-9]+[BKMGT]$' } as const;

const partitionLayout = oneOf(stringEnum('remove'), bool, {
  type: 'array',
  items: oneOf(int, { type: 'array', items: anyOf(int, str), minItems: 2, maxItems: 2 }),
});

export const STORAGE_KEYS = {
  device_aliases: mapOf('^.+$', str),
  disk_setup: mapOf(
    '^.+$',
    closedObject({ table_type: stringEnum('mbr', 'gpt'), layout: partitionLayout, overwrite: bool }),
  ),
  fs_setup: {
    type: 'array',
    items: closedObject({
      label: str,
      filesystem: str,
      device: str,
      // Upstream's schema allows an integer by type but its oneOf only a word: a number is refused.
      partition: { type: ['string', 'integer'], oneOf: [stringEnum('auto', 'any', 'none')] },
      overwrite: bool,
      replace_fs: str,
      extra_opts: { type: ['array', 'string'], items: str },
      cmd: { type: ['array', 'string'], items: str },
    }),
  },
  mounts: { type: 'array', items: { type: 'array', items: str, minItems: 1, maxItems: 6 }, minItems: 1 },
  mount_default_fields: { type: 'array', items: oneOf(str, nul), minItems: 6, maxItems: 6 },
  swap: closedObject({
    filename: str,
    size: oneOf(enumOf('auto'), int, sizeWithUnit),
    maxsize: oneOf(int, sizeWithUnit),
  }),
  growpart: closedObject({
    mode: oneOf(
      enumOf('auto', 'growpart', 'gpart', 'off'),
      changed(
        enumOf(false),
        '22.3',
        "Specifying a boolean ``false`` value for **mode** is deprecated. Use the string ``'off'`` instead.",
      ),
    ),
    devices: strings,
    ignore_growroot_disabled: bool,
  }),
  resize_rootfs: enumOf(true, false, 'noblock'),
} as const;
