// cloud-init's load_shell_content: the KEY=VALUE words of a shell-like file (/etc/default/locale), split as
// Python's shlex.split(text, comments=True) splits them.
import { ConfigError, describeError } from './errors';

const WHITESPACE = ' \t\r\n';

/** Python's shlex.split(TEXT, comments=True) (POSIX mode): quotes, backslashes and `#` comments as shlex reads them. */
export function shlexSplit(text: string): string[] {
  const words: string[] = [];
  let token = '';
  let quoted = false;
  // ' ' between words, 'a' in a word, a quote character inside quotes, '\\' after a backslash.
  let state = ' ';
  let escapedState = 'a';
  const endWord = () => {
    if (token !== '' || quoted) words.push(token);
    token = '';
    quoted = false;
    state = ' ';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (state === ' ' || state === 'a') {
      if (WHITESPACE.includes(ch)) {
        if (state === 'a') endWord();
      } else if (ch === '#') {
        // The rest of the line is a comment, also in the middle of a word (which it ends).
        const nl = text.indexOf('\n', i);
        i = nl < 0 ? text.length : nl;
        if (state === 'a') endWord();
      } else if (ch === "'" || ch === '"') {
        state = ch;
        quoted = true;
      } else if (ch === '\\') {
        escapedState = 'a';
        state = '\\';
      } else {
        token += ch;
        state = 'a';
      }
    } else if (state === "'" || state === '"') {
      if (ch === state) state = 'a';
      else if (ch === '\\' && state === '"') {
        escapedState = state;
        state = '\\';
      } else token += ch;
    } else {
      // After a backslash: inside double quotes it escapes only '"' and '\\', and is kept before anything else.
      if (escapedState === '"' && ch !== '"' && ch !== '\\') token += '\\';
      token += ch;
      state = escapedState;
    }
  }
  if (state === "'" || state === '"') throw new ConfigError('No closing quotation');
  if (state === '\\') throw new ConfigError('No escaped character');
  if (state === 'a') endWord();
  return words;
}

/**
 * The variables of TEXT as load_shell_content reads them: every word must be KEY=VALUE (a word without '=',
 * such as `export`, is an error, as it is for cloud-init); empty values are left out; the last one wins.
 * SOURCE names the file in errors.
 */
export function loadShellContent(text: string, source: string): Record<string, string> {
  const data: Record<string, string> = {};
  let words: string[];
  try {
    words = shlexSplit(text);
  } catch (err) {
    throw new ConfigError(`${source}: ${describeError(err)}`);
  }
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq < 0)
      throw new ConfigError(
        `${source}: '${word}' is not KEY=VALUE (cloud-init's load_shell_content refuses the file too)`,
      );
    const value = word.slice(eq + 1);
    if (value !== '') data[word.slice(0, eq)] = value;
  }
  return data;
}
