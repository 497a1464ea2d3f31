// Stack traces of the built binary in kiln's own source files: a frame of the bundle (`kiln.cjs:LINE:COLUMN`) is
// looked up in the source map the binary carries (the asset build.mjs adds) with Node's own source map reader.
import type * as NodeModule from 'node:module';
import type * as NodeSea from 'node:sea';

interface BundleMap {
  map: NodeModule.SourceMap;
  /** Columns the loader's wrapper adds to the bundle's first line. */
  firstLineOffset: number;
}

let loaded: BundleMap | null | undefined;

/** The binary's source map; null outside a built binary (tests, a bundle run by node) or when it cannot be read. */
function bundleMap(): BundleMap | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  try {
    const sea = process.getBuiltinModule('node:sea') as typeof NodeSea;
    if (!sea.isSea()) return loaded;
    const asset = JSON.parse(Buffer.from(sea.getRawAsset('kiln.map') as ArrayBuffer).toString('utf8')) as {
      firstLineOffset: number;
      map: NodeModule.SourceMapPayload;
    };
    const { SourceMap } = process.getBuiltinModule('node:module') as unknown as typeof NodeModule;
    loaded = { map: new SourceMap(asset.map), firstLineOffset: asset.firstLineOffset };
  } catch {
    // A binary without the map (or one it cannot parse) prints the bundle's frames, as before.
  }
  return loaded;
}

/** One frame position: the source file (from the repository root), line and column, or undefined when unmapped. */
function mapPosition(map: BundleMap, line: number, column: number): string | undefined {
  const col = line === 1 ? column - map.firstLineOffset : column;
  const entry = map.map.findEntry(line - 1, col - 1) as Partial<NodeModule.SourceMapping>;
  if (!entry.originalSource) return undefined;
  return `${entry.originalSource}:${(entry.originalLine ?? 0) + 1}:${(entry.originalColumn ?? 0) + 1}`;
}

/**
 * STACK with the bundle's frames named by kiln's source files; as it is outside a built binary or with
 * KILN_SOURCE_MAP=0.
 */
export function sourceMappedStack(stack: string, env: NodeJS.ProcessEnv, map: BundleMap | null = bundleMap()): string {
  if (!map || env.KILN_SOURCE_MAP === '0') return stack;
  return stack.replace(
    /\bkiln\.cjs:(\d+):(\d+)/g,
    (frame, line: string, column: string) => mapPosition(map, Number(line), Number(column)) ?? frame,
  );
}
