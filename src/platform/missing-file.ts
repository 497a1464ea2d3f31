// Reading a file that may legitimately be absent: undefined for "not there", an error for anything else.

/** Resolves READ's text, or undefined when it failed because the file does not exist (ENOENT). */
export async function undefinedIfMissing(read: () => Promise<string>): Promise<string | undefined> {
  try {
    return await read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
