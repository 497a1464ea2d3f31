// The network parity cases: one folder per case under test/parity/net-cases/<name>/, a metadata tree served on
// 169.254.169.254 plus the DMI, NIC and datasource_list of the machine that sees it (format in docs/parity.md).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/repo';
import type { Expectation } from './seeds';

export const NET_CASES_DIR = join(REPO, 'test', 'parity', 'net-cases');

/**
 * How the case's mock metadata service runs: `kiln devel serve-metadata --kind KIND --dir <case>/tree ARGS…`;
 * kind "none" starts none (the lab keeps its DHCP server).
 */
export interface NetServe {
  kind: string;
  /** Further serve-metadata options, e.g. ["--imdsv2", "required"]. */
  args: string[];
  /** Where it listens (default 169.254.169.254:80). */
  listen: string;
  /** Addresses (CIDR) the mock's side of the link holds besides 10.199.0.1/24 (default ["169.254.169.254/32"]). */
  addresses: string[];
}

export interface NetCase {
  name: string;
  dir: string;
  notes: string;
  /** The served tree (user data included, where the cloud serves it). */
  tree: string;
  serve: NetServe;
  /** File name in /sys/class/dmi/id → value (a newline is added), e.g. { "sys_vendor": "Amazon EC2" }. */
  dmi: Record<string, string>;
  /** The MAC of the machine's one NIC, eth0 (the metadata's network config names it). */
  mac: string;
  /** Written as datasource_list into /etc/cloud/cloud.cfg.d/90-kiln-parity.cfg on both sides. */
  datasourceList: string[];
  /** Lines added to udhcpd.conf (e.g. "opt dns 10.199.0.1", "opt 0xf5 …"). */
  dhcpOptions: string[];
  /** Optional cloud.cfg snippet of the case (file `cloud.cfg`), appended to 90-kiln-parity.cfg. */
  config: string;
  /**
   * Optional folder (`rootfs/`) copied over both rootfs copies before the first stage: what the cloud's image or
   * hypervisor puts in the machine and the lab's network cannot carry (a provisioning seed, an /etc/hosts entry).
   */
  rootfs?: string;
  /** `physical_nic`: eth0 gets a `device` folder in the stages' sysfs (sandbox-stages.ts), as a VM's NIC has. */
  physicalNic: boolean;
  /** Checked on both sides after the last stage, so the case proves the source really acted. */
  expect: Expectation[];
  /**
   * Requests the mock must have logged by the last stage, on both sides: each is a part of a `--request-log`
   * record (`{ "domu_request": "saved_password", "status": 200 }`) that some logged request must match.
   */
  expectRequests: Array<Record<string, string | number>>;
  /** The stage the source is found in ('init-local' by default; 'init' for a source only the network stage reads). */
  foundIn: 'init-local' | 'init';
  /**
   * Interfaces are brought up as cloud-init does (no `disable_network_activation`), the distro's networking (`ifup -a`)
   * runs between init-local and init as networking.service does at boot, and the ci-info tables, the datasource
   * status.json names and the machine's addresses after the init stage are compared too.
   *
   * One of the two ways a case gives the init stage a network; the other is networkUp. They are not one mechanism
   * because they compare different things: here activation itself is the subject (what init-local rendered brought
   * up, cloud-init's own `ifup`, the addresses that result), so the case must leave activation on and pays for the
   * extra compared entries; networkUp only makes the link usable for a source read in the init stage, with activation
   * off and nothing added to the comparison, so such a case fails only on what its source did.
   */
  activation: boolean;
  /**
   * `"ipv6": false`: the machine's eth0 has IPv6 turned off (an IPv4-only cloud network). cloud-init 25.1's fallback
   * config asks for DHCPv6 too, and ifupdown's `inet6 dhcp` runs a `dhclient -6` that never gives up when no DHCPv6
   * server answers (the lab has none); without IPv6 it fails at once instead (no link-local address), on both sides.
   */
  ipv6: boolean;
  /** More NICs of the machine: each a veth whose cloud end holds cloudAddress (CIDR) and is up. */
  extraNics: Array<{ name: string; mac: string; cloudAddress: string }>;
  /**
   * Lines the machine's normalised addresses must hold on both sides after the stages ('eth1 inet 10.198.0.5/24 scope
   * global').
   */
  expectAddresses: string[];
  /**
   * The machine's kernel command line (`kernel_cmdline`), bind-mounted over /proc/cmdline in every stage of both
   * sides (a MAAS ephemeral boot's `cloud-config-url=`); none: the host's own, as before.
   */
  kernelCmdline?: string;
  /** The case's `seed/` folder, copied to /var/lib/cloud/seed/nocloud-net in the root, when it has one. */
  seed?: string;
  /**
   * 'dhclient': a source cloud-init 22.4 reads in the init stage only (no *Local variant: MAAS, CloudStack…): before
   * that stage the machine's eth0 gets its lease from dhclient, as the networking service of a real boot would give
   * it (see activation for why that is a second way).
   */
  networkUp?: 'dhclient';
}

interface CaseJson {
  notes?: string;
  serve?: Partial<NetServe> & { kind?: string };
  dmi?: Record<string, string>;
  mac?: string;
  datasource_list?: string[];
  dhcp_options?: string[];
  physical_nic?: boolean;
  expect?: Expectation[];
  expect_requests?: Array<Record<string, string | number>>;
  found_in?: 'init-local' | 'init';
  activation?: boolean;
  ipv6?: boolean;
  extra_nics?: Array<{ name: string; mac: string; cloud_address: string }>;
  expect_addresses?: string[];
  network_up?: 'dhclient';
  /** Gone: a fixed address on eth0 after init-local; `network_up: "dhclient"` gives the init stage its network. */
  init_address?: unknown;
  kernel_cmdline?: string;
}

function caseError(name: string, what: string): Error {
  return new Error(`network parity case ${name}: ${what} (see docs/parity.md, "Network sources")`);
}

export function loadNetCases(dir = NET_CASES_DIR): NetCase[] {
  return readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isDirectory())
    .sort()
    .map((name) => {
      const d = join(dir, name);
      const c = JSON.parse(readFileSync(join(d, 'case.json'), 'utf8')) as CaseJson;
      if (!c.serve?.kind) throw caseError(name, 'case.json names no serve.kind');
      if (!c.mac || !/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(c.mac))
        throw caseError(name, 'case.json needs mac, lower-case aa:bb:cc:dd:ee:ff');
      if (!c.datasource_list?.length) throw caseError(name, 'case.json needs a datasource_list');
      if (c.init_address !== undefined)
        throw caseError(
          name,
          'init_address is gone: "network_up": "dhclient" gives the init stage its network (a lease from the lab\'s udhcpd)',
        );
      if (c.network_up !== undefined && c.network_up !== 'dhclient')
        throw caseError(name, `network_up is "dhclient" or absent, not ${JSON.stringify(c.network_up)}`);
      // serve.kind "none": a source with no metadata service on the link (VMware's guestinfo through a fake tool in
      // rootfs/).
      if (c.serve.kind !== 'none' && !existsSync(join(d, 'tree'))) throw caseError(name, 'no tree/ folder to serve');
      const cfg = join(d, 'cloud.cfg');
      return {
        name,
        dir: d,
        notes: c.notes ?? '',
        tree: join(d, 'tree'),
        serve: {
          kind: c.serve.kind,
          args: c.serve.args ?? [],
          listen: c.serve.listen ?? '169.254.169.254:80',
          addresses: c.serve.addresses ?? ['169.254.169.254/32'],
        },
        dmi: c.dmi ?? {},
        mac: c.mac,
        datasourceList: c.datasource_list,
        dhcpOptions: c.dhcp_options ?? [],
        config: existsSync(cfg) ? readFileSync(cfg, 'utf8') : '',
        physicalNic: c.physical_nic === true,
        rootfs: existsSync(join(d, 'rootfs')) ? join(d, 'rootfs') : undefined,
        expect: c.expect ?? [],
        expectRequests: c.expect_requests ?? [],
        foundIn: c.found_in ?? 'init-local',
        activation: c.activation ?? false,
        ipv6: c.ipv6 ?? true,
        expectAddresses: c.expect_addresses ?? [],
        extraNics: (c.extra_nics ?? []).map((n) => ({ name: n.name, mac: n.mac, cloudAddress: n.cloud_address })),
        ...(existsSync(join(d, 'seed')) ? { seed: join(d, 'seed') } : {}),
        ...(c.network_up === 'dhclient' ? { networkUp: 'dhclient' as const } : {}),
        ...(c.kernel_cmdline !== undefined ? { kernelCmdline: c.kernel_cmdline } : {}),
      };
    });
}
