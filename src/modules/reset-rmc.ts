// cc_reset_rmc: on IBM PowerVM images with RSCT, gives a cloned machine a new RMC node id (rmcctrl -z, then recfgct).
import { ModuleError, type Module, type ModuleContext } from './module';

/** Where RSCT's install tools live; the module does nothing unless this folder exists. */
export const RSCT_PATH = '/opt/rsct/install/bin';
export const CT_NODE_ID_FILE = '/etc/ct_node_id';
/** The target's default PATH (as the platform runs commands), with RSCT's folder first, as cloud-init prepends it. */
const RSCT_ENV_PATH = `${RSCT_PATH}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;

/** The node id: the first line of /etc/ct_node_id; a missing file fails the module, as in cloud-init. */
async function nodeId(ctx: ModuleContext): Promise<string> {
  const text = await ctx.platform.readTextIfExists(CT_NODE_ID_FILE);
  if (text === undefined)
    throw new ModuleError('reset_rmc', `Failed to get node ID from file ${CT_NODE_ID_FILE}: the file does not exist`);
  return text.split('\n')[0] ?? '';
}

async function isDirectory(ctx: ModuleContext, path: string): Promise<boolean> {
  return (await ctx.platform.stat(path))?.type === 'directory';
}

export const resetRmcModule: Module = {
  name: 'reset_rmc',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  async run(ctx): Promise<void> {
    if (ctx.instance?.platform === 'none') {
      ctx.log.debug('Skipping creation of new ct_node_id node');
      return;
    }
    if (!(await isDirectory(ctx, RSCT_PATH))) {
      ctx.log.debug('module disabled, RSCT_PATH not present');
      return;
    }
    ctx.log.debug('Attempting to reset RMC.');
    const before = await nodeId(ctx);
    ctx.log.debug(`Node ID at beginning of module: ${before}`);
    const env = { PATH: RSCT_ENV_PATH };
    // Stop the RMC subsystem, then let recfgct make a new node id.
    await ctx.platform.run(['rmcctrl', '-z'], { env });
    const out = await ctx.platform.run(['recfgct'], { env });
    if (out.stdout.trim()) ctx.log.debug(out.stdout.trim());
    const after = await nodeId(ctx);
    ctx.log.debug(`Node ID at end of module: ${after}`);
    if (after === before) throw new ModuleError('reset_rmc', 'New node ID did not get generated.');
  },
};
