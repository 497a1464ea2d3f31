// Which EC2-compatible cloud this is, from DMI (cloud-init's Ec2 identify_platform and ds-identify), and what strict_id
// allows when none says so.
import type { DetectContext } from '../datasource';
import { sourceSettings } from '../settings';

/** AWS from DMI: sys_vendor 'Amazon EC2', or a product/hypervisor UUID starting with 'ec2' (Xen instances). */
export function looksLikeEc2(dmi: Record<string, string>): boolean {
  if (/^Amazon EC2$/i.test(dmi.sys_vendor ?? '')) return true;
  const uuid = (dmi.product_uuid ?? '').toLowerCase();
  const serial = (dmi.product_serial ?? '').toLowerCase();
  const hv = (dmi.hypervisor_uuid ?? '').toLowerCase();
  return (
    hv.startsWith('ec2') ||
    (uuid.startsWith('ec2') && (serial === '' || serial.startsWith('ec2'))) ||
    (uuid.startsWith('ec2') && serial === uuid)
  );
}

/** cloud-init's CloudNames for Ec2: the cloud_name each reports. */
export type Ec2CloudName = 'aws' | 'brightbox' | 'zstack' | 'e24cloud' | 'outscale' | 'tilaa' | 'unknown';

/** Clouds whose Ec2Local runs in init-local (cloud-init's DataSourceEc2Local supported_platforms). */
export const EC2_LOCAL_CLOUDS: readonly Ec2CloudName[] = ['aws', 'outscale'];

/**
 * The cloud, checked in cloud-init's order: AWS, Brightbox (serial `*.brightbox.com`), ZStack (asset tag
 * `*.zstack.io`), e24cloud (vendor), 3DS Outscale (vendor and product name), Tilaa (vendor; newer cloud-init).
 * Compared lower-cased, as cloud-init's _collect_platform_data does (ds-identify compares as-is; the values the
 * clouds set are the same either way). cloud-init's own Tilaa check compares the lower-cased vendor with
 * 'Tilaa' and so never matches, though ds-identify finds it: kiln reports `tilaa`, the name it was meant to give.
 */
export function identifyEc2Platform(dmi: Record<string, string>): Ec2CloudName {
  const low = (k: string) => (dmi[k] ?? '').trim().toLowerCase();
  if (looksLikeEc2(dmi)) return 'aws';
  if (low('product_serial').endsWith('.brightbox.com')) return 'brightbox';
  if (low('chassis_asset_tag').endsWith('.zstack.io')) return 'zstack';
  if (low('sys_vendor') === 'e24cloud') return 'e24cloud';
  if (low('product_name') === '3ds outscale vm' && low('sys_vendor') === '3ds outscale') return 'outscale';
  if (low('sys_vendor') === 'tilaa') return 'tilaa';
  return 'unknown';
}

export type StrictMode = 'true' | 'false' | 'warn';

/**
 * cloud-init's strict_id for a cloud that does not identify itself: `true` (the default in ds-identify: Ec2 is
 * not tried), `false` or `warn[,SLEEP]` (tried; warn also logs a warning). Read from the kernel command line
 * (`ci.datasource.ec2.strict_id=`, as ds-identify) before `datasource.Ec2.strict_id`. An invalid value is
 * warned about and the default taken.
 */
export function ec2StrictMode(ctx: DetectContext): StrictMode {
  const fromCmdline = /(?:^|\s)ci\.datasource\.ec2\.strict_id=(\S*)/.exec(ctx.kernelCmdline)?.[1];
  const given: unknown =
    fromCmdline !== undefined && fromCmdline !== '' ? fromCmdline : sourceSettings(ctx.config, 'Ec2').strict_id;
  if (given === undefined || given === null) return 'true';
  if (given === true || given === false) return given ? 'true' : 'false';
  const text = String(given).trim().toLowerCase();
  const mode = text.split(',')[0] ?? '';
  const sleep = text.split(',').slice(1).join(',');
  if (
    (mode === 'true' || mode === 'false' || mode === 'warn') &&
    (sleep === '' || (mode === 'warn' && /^\d+$/.test(sleep)))
  )
    return mode;
  ctx.log.warn(`datasource.Ec2.strict_id '${String(given)}' is not true, false or warn[,SECONDS]; using true`);
  return 'true';
}
