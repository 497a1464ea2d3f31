// cloud-init's canonical cloud id: the cloud name, refined by region for partitioned clouds.

export function canonicalCloudId(cloudName: string, region: string | undefined, platform: string): string {
  const name = cloudName.toLowerCase();
  const r = (region ?? '').toLowerCase();
  if (name === 'aws') {
    if (r.startsWith('cn-')) return 'aws-china';
    if (r.startsWith('us-gov-')) return 'aws-gov';
    return 'aws';
  }
  if (name === 'azure') {
    if (r.startsWith('china')) return 'azure-china';
    if (r.startsWith('usgov')) return 'azure-gov';
    return 'azure';
  }
  if (name === 'unknown' || name === '') return platform;
  return name;
}
