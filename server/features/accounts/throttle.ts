import { inLine } from '../../lib/in-line.js';
import { HOUR, MINUTE } from '../../lib/time.js';
import { Counter, type CounterHost } from '../../plugins/security.js';

/** A failed login as the per-address counter keys it: the identifier as typed, and the client address. */
export interface LoginAttempt {
  identifier: string;
  ip: string;
}

/** Counted as it is: a login identifier or an e-mail address as their schemas folded them, a browser id. */
const asIs = (value: string) => value;

export const LOGIN_LIMITS = {
  /** Failed logins per (identifier, client address) in the window; then that address waits for the window's end. */
  perAddress: 5,
  perAddressWindow: 15 * MINUTE,
  /** Failed logins per identifier from all addresses in the window answered without delay… */
  answeredAtOnce: 5,
  anywhereWindow: HOUR,
  /** …then each further one doubles the delay before an answer, from this, up to `delayMaxMs`. Never a refusal. */
  delayBaseMs: 250,
  delayMaxMs: 3000,
  /** Failed logins through one device cookie in the window; then that browser counts as unknown until the window ends. */
  perDevice: 5,
  perDeviceWindow: 15 * MINUTE,
} as const;

/** Failures from anywhere past which the delay reaches its maximum: what the counter needs to hold. */
const DELAY_SATURATES_AT =
  LOGIN_LIMITS.answeredAtOnce + Math.ceil(Math.log2(LOGIN_LIMITS.delayMaxMs / LOGIN_LIMITS.delayBaseMs)) + 1;

/** The delay before answering a login for an identifier with `failures` failed logins from anywhere in the hour (ms). */
export function loginDelayMs(failures: number): number {
  if (failures < LOGIN_LIMITS.answeredAtOnce) return 0;
  const delay = LOGIN_LIMITS.delayBaseMs * 2 ** (failures - LOGIN_LIMITS.answeredAtOnce);
  return Math.min(LOGIN_LIMITS.delayMaxMs, delay);
}

/**
 * The account-level limits, counted by what was typed (never by account, so they tell
 * nothing of who exists), and the failures of each login device cookie.
 */
export function createThrottles(app: CounterHost) {
  const L = LOGIN_LIMITS;
  return {
    /** Per (identifier, client address): one address never locks the owner out elsewhere. */
    loginFailures: new Counter(
      app,
      'login-failures',
      L.perAddress,
      L.perAddressWindow,
      (attempt: LoginAttempt) => `${attempt.identifier}|${attempt.ip}`,
    ),
    /** Per identifier from all addresses together: what the slow-down is measured by. */
    loginFailuresAnywhere: new Counter(app, 'login-failures-anywhere', DELAY_SATURATES_AT, L.anywhereWindow, asIs),
    /** Per device cookie (its browser id): wrong passwords through a known browser. */
    deviceFailures: new Counter(app, 'login-device-failures', L.perDevice, L.perDeviceWindow, asIs),
    /** 5 reset requests an hour per e-mail address. */
    resetByAddress: new Counter(app, 'reset', 5, HOUR, asIs),
    /** 5 verification resends an hour per e-mail address. */
    resendByAddress: new Counter(app, 'resend', 5, HOUR, asIs),
    /** Password checks of one counter's key, one after another: forty at once read no more than one by one would. */
    checks: inLine(),
  };
}
export type Throttles = ReturnType<typeof createThrottles>;
