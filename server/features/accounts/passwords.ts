import { hash, type Options, verify } from '@node-rs/argon2';

/** argon2id (the library's default algorithm) at OWASP's parameters: 19 MiB, 2 passes, 1 lane. */
export const PASSWORD_HASH_COST: Readonly<Options> = Object.freeze({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });

let cost: Readonly<Options> = PASSWORD_HASH_COST;

/**
 * Test runs only: hashes at `options` from now on (the server tests sign up and log in hundreds
 * of times, and would spend most of that in argon2 at full cost); with no argument, back to
 * PASSWORD_HASH_COST. No server code calls it, no setting reaches it, and it throws outside
 * Vitest or with NODE_ENV=production.
 */
export function hashPasswordsAtCostForTests(options?: Readonly<Options>): void {
  if (!process.env.VITEST || process.env.NODE_ENV === 'production') {
    throw new Error('The password hashing cost changes in test runs only.');
  }
  cost = options ?? PASSWORD_HASH_COST;
}

/** An argon2id hash at PASSWORD_HASH_COST. */
export const hashPassword = (password: string): Promise<string> => hash(password, cost);

// Checked against when no user matches, so a wrong username costs as long as a wrong password.
let decoy: { cost: Readonly<Options>; hash: Promise<string> } | undefined;

/** Whether the password matches the hash; with no hash, spends the same time and says no. */
export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  if (!passwordHash) {
    if (decoy?.cost !== cost) decoy = { cost, hash: hash('decoy password that matches nothing 1', cost) };
    await verify(await decoy.hash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    // A malformed stored hash is a failed login, not a server error.
    return false;
  }
}
