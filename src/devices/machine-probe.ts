// `probe` with no argument on Linux: every block device under the root, as blkid would list them.
import { listLinuxBlockDevices, openLinuxBlockDevice } from './linux-block-devices';
import { probe, type ProbeResult } from './probe';
import { describeError } from '../util/errors';

/** Probes each device in ROOT/sys/class/block; whole disks with partition entries are not split again. */
export async function probeLinuxMachine(root: string): Promise<ProbeResult[]> {
  const devices = await listLinuxBlockDevices(root);
  const disksWithPartitions = new Set(devices.flatMap((d) => (d.partitionOf ? [d.partitionOf.disk] : [])));
  const out: ProbeResult[] = [];
  for (const dev of devices) {
    try {
      const reader = await openLinuxBlockDevice(root, dev);
      out.push(await probe(reader, { partitions: !disksWithPartitions.has(dev.name) }));
    } catch (err) {
      out.push({ device: dev.devPath, size: dev.size, error: describeError(err) });
    }
  }
  return out;
}
