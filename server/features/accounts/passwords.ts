import { hash, verify } from '@node-rs/argon2';
/** An argon2id hash (the library's default algorithm, OWASP parameters). */
export const hashPassword = (password: string): Promise<string> => hash(password);

// Checked against when no user matches, so a wrong username costs as long as a wrong password.
let decoy: Promise<string> | undefined;

/** Whether the password matches the hash; with no hash, spends the same time and says no. */
export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  if (!passwordHash) {
    decoy ??= hash('decoy password that matches nothing 1');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    // A malformed stored hash is a failed login, not a server error.
    return false;
  }
}
