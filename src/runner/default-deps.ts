// The real implementations the CLI hands the runner: kiln's sources, modules, user-data and network code.
import type { Platform } from '../platform/platform';
import type { RunnerDeps } from './runner-deps';

export interface DefaultDepsInput {
  platform: Platform;
  embeddedConfig: string | undefined;
  version: string;
  env: NodeJS.ProcessEnv;
}

export function defaultRunnerDeps(input: DefaultDepsInput): RunnerDeps {
  return {
    sources: [],
    modules: [],
    async processUserData() {
      return { cloudConfig: {} };
    },
    async selectAndRenderNetwork() {
      return { written: [] };
    },
    finder: { find: async () => [] },
    embeddedConfig: input.embeddedConfig,
    version: input.version,
  };
}
