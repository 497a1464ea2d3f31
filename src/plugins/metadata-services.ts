// Finding a configured cloudbase-init metadata service among the registered ones, and the route its load() asks for
// first.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';
import type { CloudbaseMetadataService } from '../sources/cloudbase-metadata-service';
import { CLOUDBASE_SERVICES } from '../sources/registry';

/**
 * The service a metadata_services entry names: its class path, or its last component (e.g. 'ConfigDriveService');
 * undefined when unknown.
 */
export function findMetadataService(
  classPath: string,
  services: readonly CloudbaseMetadataService[] = CLOUDBASE_SERVICES,
): CloudbaseMetadataService | undefined {
  const direct = services.find((s) => s.classPath === classPath);
  if (direct) return direct;
  const short = classPath.split('.').pop();
  return services.find((s) => s.classPath.split('.').pop() === short);
}

/**
 * The metadata URL to route to before SERVICE is loaded, when its route section's add_metadata_private_ip_route
 * is true (default true for [openstack] and [ec2], false for [cloudstack], as in cloudbase-init's conf); else
 * undefined.
 */
export function metadataRouteUrl(service: CloudbaseMetadataService, conf: CloudbaseConf): string | undefined {
  const section = service.routeSection;
  if (!section || !conf.bool('add_metadata_private_ip_route', section)) return undefined;
  return conf.str('metadata_base_url', section);
}
