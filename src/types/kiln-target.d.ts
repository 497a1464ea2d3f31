// The build facts that build.mjs embeds for each target (see targetPlugin there).
declare module 'kiln:target' {
  /** One file `kiln install` writes, as embedded at build time. */
  export interface InstallFile {
    text: string;
    /** Permission bits it is installed with (0o644, 0o755). */
    mode: number;
  }
  export interface BuildFacts {
    version: string;
    target: { name: string; os: 'linux' | 'win'; arch: string; nodeVersion: string };
    /** File name (cloud.cfg, cloudbase-init.conf …) → text, as shipped (`devel show-config --embedded` prints it). */
    defaultConfigs: Record<string, string>;
    /** The default cloud.cfg as the YAML reader (src/config/read-yaml.ts) read it at build time; absent without one. */
    defaultCloudConfig?: Record<string, unknown>;
    /**
     * File name → text and mode of what `kiln install` writes: systemd units, the generator and hook-hotplug
     * (Linux), confs (Windows). The mode comes from the target's JSON (0644 unless it names another).
     */
    installFiles: Record<string, InstallFile>;
    /** koffi's prebuilt addon for this target: its version, SHA-256 and the name of the binary's asset holding it. */
    koffiAddon: { version: string; sha256: string; asset: string } | null;
  }
  const facts: BuildFacts;
  export default facts;
}
