// cc_disable_ec2_metadata: rejects the route to the EC2 metadata address (ip route, else route).
import type { Module } from './module';
import { configModule } from './support/config-module';

export const EC2_METADATA_ADDRESS = '169.254.169.254';

export const disableEc2MetadataModule: Module = configModule({
  name: 'disable_ec2_metadata',
  stage: 'config',
  frequency: 'always',
  distros: 'all',
  activateBy: ['disable_ec2_metadata'],
  configKeys: { disable_ec2_metadata: 'bool' },
  async run(ctx, cfg): Promise<void> {
    if (!cfg.disable_ec2_metadata) {
      ctx.log.debug('Skipping module named disable_ec2_metadata, disabling the ec2 route not enabled');
      return;
    }
    // cloud-init looks the tools up in the target's PATH; so do we, inside the target.
    const has = async (tool: string) =>
      (await ctx.platform.run(['sh', '-c', `command -v ${tool}`], { allowFailure: true })).code === 0;
    let cmd: string[];
    if (await has('ip')) cmd = ['ip', 'route', 'add', 'prohibit', EC2_METADATA_ADDRESS];
    else if (await has('ifconfig')) cmd = ['route', 'add', '-host', EC2_METADATA_ADDRESS, 'reject'];
    else {
      ctx.log.error('Neither "route" nor "ip" command found, unable to manipulate routing table');
      return;
    }
    await ctx.platform.run(cmd);
  },
});
