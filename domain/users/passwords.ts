import { randomBytes } from 'node:crypto';
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { validationError } from '../../lib/errors';

/**
 * argon2id at OWASP's first recommended setting (19 MiB, 2 passes, 1 lane): memory-hard, about 20 ms here. The
 * parameters travel inside each stored PHC string, so raising them later leaves existing hashes verifiable.
 */
// The package's `Algorithm` is a const enum, which isolated modules cannot read: 2 is its Argon2id.
const OPTIONS = { algorithm: 2 as Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** NIST SP 800-63B: at least 8 characters, no composition rules; the upper bound only caps the hashing input. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

export function checkPassword(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw validationError(`password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`, [{ field: 'password', message: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }]);
  }
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** A hash of nothing anyone knows: an unknown e-mail costs the same verification as a known one. */
let decoy: Promise<string> | undefined;

/** Verifies against `stored`, or against the decoy when there is no user, so timing does not tell which. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  const against = stored ?? (await decoy);
  const ok = await verify(against, password).catch(() => false);
  return stored !== null && ok;
}

/** 144 random bits, printed once by the CLI when no password is given. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
