// Start-up time of the built binary: `--version` and `version --long`, median of repeated runs.
import { spawnSync } from 'node:child_process';
import { builtBinary } from '../helpers/repo';
import { medianMs, printTable } from './measure';

const bin = builtBinary('kiln-linux-x64');
if (!bin) {
  console.log('dist/kiln-linux-x64 is not built; run npm run build first');
  process.exit(1);
}
const rows: string[][] = [];
for (const args of [['--version'], ['version', '--long']]) {
  const ms = medianMs(15, () => {
    spawnSync(bin, args);
  });
  rows.push([`kiln ${args.join(' ')}`, ms.toFixed(1), ms < 100 ? 'yes' : 'NO']);
}
printTable(['command', 'median ms', 'under 100 ms'], rows);
