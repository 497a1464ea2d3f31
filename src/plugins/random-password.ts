// Random passwords that meet Windows' complexity rules (upper, lower, digit and symbol), from the OS's CSPRNG.
import { passwordOfClasses } from '../util/password-of-classes';

const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const DIGITS = '23456789';
const SYMBOLS = '!#$%&()*+,-./:;<=>?@[]^_{|}~';

export function randomPassword(length: number): string {
  return passwordOfClasses([UPPER, LOWER, DIGITS, SYMBOLS], Math.max(length, 8));
}
