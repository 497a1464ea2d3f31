// undici is the largest piece of the bundle and costs start-up time when evaluated; most boots (local sources,
// the modules stages) never make a request, so it is loaded on first use. esbuild turns the dynamic import into
// a lazy require of the bundled copy.
type Undici = typeof import('undici');

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici');
  return loading;
}
