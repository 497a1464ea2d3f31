// OpenNebula on Windows as cloudbase-init's OpenNebulaService reads it: CD-ROM drives with context.sh, its
// host name, keys, raw user data and one static address per numbered ETHx_MAC.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Platform } from '../../src/platform/platform';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { cloudbaseOpenNebulaNetwork } from '../../src/sources/opennebula/opennebula-cloudbase';
import { cloudbaseOpenNebulaService } from '../../src/sources/opennebula/cloudbase-opennebula-service';
import { openNebulaSource } from '../../src/sources/opennebula/opennebula';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const log = new Logger().for('t');

test('get_network_details: ETH0, ETH1 … while ETHi_MAC is set; mask guessed from the gateway; a NIC without IP or DNS keeps DHCP', () => {
  const net = cloudbaseOpenNebulaNetwork(
    {
      ETH0_MAC: '02:00:0A:00:00:05',
      ETH0_IP: '10.0.0.5',
      ETH0_MASK: '255.255.0.0',
      ETH0_GATEWAY: '10.0.0.1',
      ETH0_DNS: '10.0.0.1 10.0.0.2',
      ETH1_MAC: '02:00:c0:a8:01:07',
      ETH1_IP: '192.168.1.7',
      ETH1_GATEWAY: '192.168.1.1',
      ETH1_DNS: '192.168.1.1',
      ETH2_MAC: '02:00:00:00:00:02',
      ETH2_IP: '172.16.0.2',
      ETH2_MASK: '255.255.255.0',
      ETH4_MAC: '02:00:00:00:00:04',
      ETH4_IP: '172.16.4.4',
      ETH4_MASK: '255.255.255.0',
      ETH4_DNS: '1.1.1.1',
    },
    log,
  );
  assert.deepEqual(net, {
    version: 1,
    config: [
      {
        type: 'physical',
        name: 'eth0',
        mac_address: '02:00:0a:00:00:05',
        subnets: [
          {
            type: 'static',
            address: '10.0.0.5',
            netmask: '255.255.0.0',
            gateway: '10.0.0.1',
            dns_nameservers: ['10.0.0.1', '10.0.0.2'],
          },
        ],
      },
      {
        type: 'physical',
        name: 'eth1',
        mac_address: '02:00:c0:a8:01:07',
        subnets: [
          {
            type: 'static',
            address: '192.168.1.7',
            netmask: '255.255.255.0',
            gateway: '192.168.1.1',
            dns_nameservers: ['192.168.1.1'],
          },
        ],
      },
    ],
  });
  assert.equal(cloudbaseOpenNebulaNetwork({ ETH0_IP: '10.0.0.5' }, log), undefined);
});

test('on Windows: any CD-ROM holding context.sh; SSH_PUBLIC_KEY before SSH_KEY, user data not base64-decoded', async (t) => {
  const cd = tempDir(t);
  writeFileSync(
    join(cd, 'context.sh'),
    "SSH_KEY='ssh-rsa AAAAkey k@x'\nSSH_PUBLIC_KEY='ssh-ed25519 AAAApub p@x\n\nssh-ed25519 AAAAtwo t@x'\nHOSTNAME='win-one'\nUSERDATA_ENCODING=base64\nUSER_DATA='aGk='\n",
  );
  const other = tempDir(t);
  mkdirSync(join(other, 'x'));
  const host = new LinuxPlatform({ root: '/', log });
  const platform = { ...({} as Platform), os: 'windows', root: 'C:\\' } as Platform;
  const finder = new FakeFinder(host, [
    { device: 'D:\\', label: 'OTHER', fsType: 'iso9660', dir: other },
    { device: 'E:\\', label: 'ANY', fsType: 'iso9660', dir: cd },
  ]);
  const ctx = { platform, log, kernelCmdline: '', dmi: {}, config: {}, finder, settings: {} };
  assert.equal(await cloudbaseOpenNebulaService.detect(ctx, openNebulaSource), true);
  const data = await cloudbaseOpenNebulaService.crawl(ctx, openNebulaSource);
  assert.equal(data.instanceId, 'iid-dsopennebula');
  assert.equal(data.subplatform, 'config-disk (E:\\)');
  assert.equal(data.localHostname, 'win-one');
  assert.deepEqual(data.publicKeys, ['ssh-ed25519 AAAApub p@x', 'ssh-ed25519 AAAAtwo t@x']);
  assert.equal(Buffer.from(data.userData ?? []).toString(), 'aGk=');
  assert.equal(
    finder.requests.every((r) => r.anyLabel && r.mustContain?.includes('context.sh')),
    true,
  );
});
