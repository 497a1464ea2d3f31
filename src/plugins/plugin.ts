// The contract of a cloudbase-init plugin.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';
import type { InstanceData } from '../sources/datasource';
import type { Platform } from '../platform/platform';
import type { WindowsSystem } from '../platform/windows/windows-system';
import type { Log } from '../util/log';
import { SubjectError } from '../util/errors';

export type PluginStage = 'pre-networking' | 'pre-metadata-discovery' | 'main';

export interface PluginResult {
  /**
   * 'done' is recorded in the registry (1) and the plugin is not run again for this instance; 'next-boot' (2) runs it
   * again.
   */
  status: 'done' | 'next-boot';
  reboot: boolean;
  /**
   * Run the plugin again at every boot whatever status says (EC2's `<persist>true</persist>`, EC2Launch v2's
   * `frequency: always`): kept apart from status, which is what the plugin's work itself asked for, so the
   * reboot-loop guard never takes persistence for a script asking to run again.
   */
  persistent?: boolean;
}

export interface PluginContext {
  /** Files and commands. */
  platform: Platform;
  /** Registry, computer name, users and groups, time zone, reboots. */
  windows: WindowsSystem;
  log: Log;
  /** cloudbase-init.conf, typed, with cloudbase-init's defaults. */
  conf: CloudbaseConf;
  /** Undefined in the stages before metadata discovery. */
  instance: InstanceData | undefined;
  /** cloudbase-init's shared_data: what one plugin leaves for a later one (the created user's password …). */
  shared: Map<string, unknown>;
  /** Registers a secret (a password) so no log line or error kiln prints carries it. */
  secret(value: string): void;
  /** The process environment (SystemRoot, PROCESSOR_ARCHITECTURE … for script launch lines). */
  env: NodeJS.ProcessEnv;
  /**
   * What the metadata service that was found can take back (cloudbase-init's can_post_password …); undefined before
   * discovery.
   */
  service?: MetadataService;
  /**
   * Makes a random password of LENGTH characters meeting Windows' complexity rules (injected so tests are repeatable).
   */
  randomPassword(length: number): string;
}

/**
 * The found metadata service as plugins see it: its class path and, where the cloud supports them, its write
 * operations.
 */
export interface MetadataService {
  classPath: string;
  /** Stores the admin password, encrypted and base64; resolves false when the service already holds one (HTTP 409). */
  postPassword?(encryptedBase64: string): Promise<boolean>;
  /** Whether the service already holds a password (cloudbase-init's is_password_set); present with postPassword. */
  isPasswordSet?(): Promise<boolean>;
  /**
   * The public key the password is encrypted with (cloudbase-init's get_user_pwd_encryption_key); without it, the first
   * SSH key.
   */
  encryptionKey?(): Promise<string | undefined>;
  /** Tells the cloud the RDP certificate's SHA-1 thumbprint. */
  postRdpCertificateThumbprint?(thumbprint: string): Promise<void>;
  /**
   * cloudbase-init's get_server_certs: PKCS#12 certificates and their stores, fetched when asked (Azure's goal state
   * certificates).
   */
  serverCertificates?(): Promise<NonNullable<InstanceData['serverCertificates']>>;
  /**
   * cloudbase-init's provisioning_started/completed/failed: what the runner tells the cloud (Azure's health reports).
   */
  provisioningStarted?(): Promise<void>;
  provisioningCompleted?(): Promise<void>;
  provisioningFailed?(): Promise<void>;
}

export interface Plugin {
  /** cloudbase-init's class path, e.g. 'cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin'. */
  readonly classPath: string;
  /** The short name used in the registry state, e.g. 'SetHostNamePlugin'. */
  readonly name: string;
  readonly stage: PluginStage;
  execute(ctx: PluginContext): Promise<PluginResult>;
}

/** A plugin that cannot do its work; names the plugin and what to change. */
export class PluginError extends SubjectError {
  override readonly name = 'PluginError';
}

export const DONE: PluginResult = { status: 'done', reboot: false };

/** cloudbase-init's shared_data keys. */
export const SHARED = {
  adminUser: 'admin_user_name',
  adminPassword: 'admin_password',
} as const;
