// The build facts that build.mjs embeds for each target (see targetPlugin there).
declare module 'kiln:target' {
  export interface BuildFacts {
    version: string;
    target: { name: string; os: 'linux' | 'win'; arch: string; nodeVersion: string };
    /** File name (cloud.cfg, cloudbase-init.conf …) → text. */
    defaultConfigs: Record<string, string>;
    /** koffi's prebuilt addon for this target, Windows builds only. */
    koffiAddon: { version: string; sha256: string; base64: string } | null;
  }
  const facts: BuildFacts;
  export default facts;
}
