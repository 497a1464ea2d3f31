// cloudbase-init's PacketService: the Packet source given [packet] metadata_base_url, retried retry_count times
// retry_count_interval apart.
import { sourceService } from './cloudbase-metadata-service';

export const cloudbasePacketService = sourceService('packet.PacketService', 'Packet', {
  settings: (conf) => ({
    settings: {
      metadata_base_url: conf.str('metadata_base_url', 'packet'),
      retry_count: conf.intValue('retry_count'),
      retry_count_interval: conf.floatValue('retry_count_interval'),
    },
  }),
});
