import type { z } from 'zod';
import { newPasswordCheck, type passwordChangeRequest, WRONG_PASSWORD } from '../../../common/api/accounts.js';
import type { User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { fieldErrors, parseWith } from '../../lib/errors.js';
import { commonPasswords } from './common-passwords.js';
import type { Client } from './devices.js';
import { hashPassword } from './passwords.js';
import { revokeAllSessions, updateUser } from './repository.js';
import { checkPasswordThrottled } from './sessions.js';
import type { Throttles } from './throttle.js';

let newPassword: ReturnType<typeof newPasswordCheck> | undefined;

/** The login changing the password: its owner and its session. */
interface SignedIn {
  user: User;
  sessionId: string;
}

/**
 * The signed-in owner sets a new password after typing the current one. The new one follows a
 * reset's rules (checked first, so a typo there spends no guess); the current one is checked
 * under the login limits of her username, so a stolen session guesses no faster than a login
 * form. Every other login ends and every device key this login did not issue, in the same
 * transaction as the new hash: whoever else held the account keeps nothing of it. This login
 * and its own keys go on; reset links sent before stop working (they were for the old password).
 */
export async function changePassword(
  deps: Pick<Deps, 'db' | 'clock'>,
  throttles: Throttles,
  client: Client,
  signedIn: SignedIn,
  input: z.output<typeof passwordChangeRequest>,
): Promise<void> {
  const { user, sessionId } = signedIn;
  newPassword ??= newPasswordCheck(commonPasswords());
  parseWith(newPassword, input);
  const { ok } = await checkPasswordThrottled(deps, throttles, client, user.username, user, input.current_password);
  if (!ok) throw fieldErrors({ current_password: [WRONG_PASSWORD] }, 'wrong_password');

  const passwordHash = await hashPassword(input.new_password1);
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await updateUser(trx, user.id, { password_hash: passwordHash, password_changed_at: now });
    await revokeAllSessions(trx, user.id, now, sessionId);
  });
}
