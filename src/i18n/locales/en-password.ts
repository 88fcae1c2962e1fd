import type { password as pt } from './pt-password';

/** English texts of changing the password in Setup (part of en.ts). */
export const password: typeof pt = {
  password: {
    title: 'Password',
    intro:
      'Change your password whenever you like. Your other logins and devices are signed out at once; this one stays signed in.',
    current: 'Current password',
    new: 'New password',
    repeat: 'Repeat new password',
    submit: 'Change password',
    submitting: 'Changing…',
    changed:
      'Password changed. Your other logins and devices were signed out: sign in on them again with the new password.',
    empty: 'Fill in your current password and the new one, twice.',
    failed: 'The password could not be changed. Try again.',
  },
};
