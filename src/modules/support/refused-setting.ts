// A setting a module's own parser (config-readers.ts's OwnParser) found it cannot use, kept for the place where the
// module's cloud-init 25.1 code fails or warns on it: that code acts first on the settings before it (it makes
// folders, runs commands, waits for snapd), so refusing the value when the config is read would skip that work.

/** A setting the module refuses where it uses it, with the module's words for why. */
export class RefusedSetting {
  constructor(readonly message: string) {}
}
