// The build facts that build.mjs embeds for each target (see targetPlugin there).
declare module 'kiln:target' {
  export interface BuildFacts {
    version: string;
    target: { name: string; os: 'linux' | 'win'; arch: string; nodeVersion: string };
    /** File name (cloud.cfg, cloudbase-init.conf …) → text. */
    defaultConfigs: Record<string, string>;
    /** File name → text of what `kiln install` writes: systemd units and generator (Linux), confs (Windows). */
    installFiles: Record<string, string>;
    /** koffi's prebuilt addon for this target: its version, SHA-256 and the name of the binary's asset holding it. */
    koffiAddon: { version: string; sha256: string; asset: string } | null;
  }
  const facts: BuildFacts;
  export default facts;
}
