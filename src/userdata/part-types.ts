// The MIME types cloud-init knows for user-data parts, and the first-line prefixes that imply them.

export const CT = {
  cloudConfig: 'text/cloud-config',
  cloudConfigArchive: 'text/cloud-config-archive',
  cloudConfigJsonp: 'text/cloud-config-jsonp',
  shellscript: 'text/x-shellscript',
  shellPerBoot: 'text/x-shellscript-per-boot',
  shellPerInstance: 'text/x-shellscript-per-instance',
  shellPerOnce: 'text/x-shellscript-per-once',
  boothook: 'text/cloud-boothook',
  include: 'text/x-include-url',
  includeOnce: 'text/x-include-once-url',
  partHandler: 'text/part-handler',
  jinja: 'text/jinja2',
  upstartJob: 'text/upstart-job',
  plain: 'text/plain',
  notMultipart: 'text/x-not-multipart',
} as const;

/** Prefix → type, longest first (cloud-init compares the lower-cased, left-stripped payload). */
const STARTS_WITH: Array<[string, string]> = (
  [
    ['#include-once', CT.includeOnce],
    ['#include', CT.include],
    ['#!', CT.shellscript],
    ['#cloud-config-archive', CT.cloudConfigArchive],
    ['#cloud-config-jsonp', CT.cloudConfigJsonp],
    ['#cloud-config', CT.cloudConfig],
    ['#cloud-boothook', CT.boothook],
    ['#part-handler', CT.partHandler],
    ['## template: jinja', CT.jinja],
    ['#upstart-job', CT.upstartJob],
  ] as Array<[string, string]>
).sort((a, b) => b[0].length - a[0].length);

/** The type the first characters of TEXT imply, or DEFAULT. */
export function typeFromStartsWith(text: string, dflt?: string): string | undefined {
  const lc = text.slice(0, 64).trimStart().toLowerCase();
  for (const [prefix, type] of STARTS_WITH) if (lc.startsWith(prefix)) return type;
  return dflt;
}

/** Types whose real kind is read from the content (cloud-init's TYPE_NEEDED). */
export const TYPE_NEEDED = new Set<string>([CT.plain, CT.notMultipart]);

export const GZIP_TYPES = new Set([
  'application/gzip',
  'application/x-gzip',
  'application/x-gzip-compressed',
  'application/gzip-compressed',
  'application/x-compress',
  'application/x-compressed',
]);

/** Short names accepted by `devel make-mime` (`file:cloud-config`) → full type. */
export const SHORT_TYPES: Record<string, string> = {
  'cloud-config': CT.cloudConfig,
  'cloud-config-archive': CT.cloudConfigArchive,
  'cloud-config-jsonp': CT.cloudConfigJsonp,
  'x-shellscript': CT.shellscript,
  'x-shellscript-per-boot': CT.shellPerBoot,
  'x-shellscript-per-instance': CT.shellPerInstance,
  'x-shellscript-per-once': CT.shellPerOnce,
  'cloud-boothook': CT.boothook,
  'x-include-url': CT.include,
  'x-include-once-url': CT.includeOnce,
  'part-handler': CT.partHandler,
  jinja2: CT.jinja,
};
