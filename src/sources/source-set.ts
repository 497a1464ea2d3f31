// The datasources a boot may search and the finder for their drives: what the runners of both faces are given.
import type { FilesystemFinder } from '../devices/filesystem-finder';
import type { Datasource } from './datasource';

export interface SourceSet {
  /** Every datasource kiln has, by their cloud-init names; the config picks and orders them. */
  sources: Datasource[];
  /** Where config drives and seed filesystems are looked for. */
  finder: FilesystemFinder;
  /** The environment network sources take proxy settings from; default process.env. */
  env?: NodeJS.ProcessEnv;
}
