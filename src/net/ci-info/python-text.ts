// Python's two ways of centring text that cloud-init's ci-info tables use; their odd-width rules differ and readers
// of serial logs compare the tables by eye, so both are reproduced exactly.

/** str.center(width): CPython puts the odd space on the left only when both the padding and the width are odd. */
export function pyStrCenter(text: string, width: number): string {
  const marg = width - text.length;
  if (marg <= 0) return text;
  const left = Math.floor(marg / 2) + (marg & width & 1);
  return ' '.repeat(left) + text + ' '.repeat(marg - left);
}

/** '{0:{fill}^{size}}'.format(text) (cloud-init's util.center): the odd fill character goes to the right. */
export function pyFormatCenter(text: string, fill: string, width: number): string {
  const marg = width - text.length;
  if (marg <= 0) return text;
  const left = Math.floor(marg / 2);
  return fill.repeat(left) + text + fill.repeat(marg - left);
}
