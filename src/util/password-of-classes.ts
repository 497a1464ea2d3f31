// A random password with at least one character of each class, from the OS's CSPRNG: cloud-init's rand_user_password
// and cloudbase-init's complexity-meeting passwords are both built this way.
import { randomInt } from 'node:crypto';

/** One character of each of CLASSES (in their order), the rest up to LENGTH from all of them, then shuffled. */
export function passwordOfClasses(classes: readonly string[], length: number): string {
  const all = classes.join('');
  const pick = (set: string) => set[randomInt(set.length)] as string;
  const chars = classes.map(pick);
  while (chars.length < length) chars.push(pick(all));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join('');
}
