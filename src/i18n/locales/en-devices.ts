import type { devices as pt } from './pt-devices';

/** English texts of the owner's devices in Setup (part of en.ts). */
export const devices: typeof pt = {
  devices: {
    title: 'Devices',
    intro:
      'The phones and browsers you signed in on: alerts sent from them are known to be yours, and only from them can an alert of yours be ended. Remove any you do not recognise: whoever holds a copy of its key can no longer use it.',
    unknown: 'Unknown device',
    current: 'This device',
    lastUsed: 'Last used: {{when}}',
    neverUsed: 'Added: {{when}} (not used yet)',
    none: 'No device has a key. Signed in, open the emergency button on your phone so its alerts are yours.',
    removeNamed: 'Remove {{name}}',
    removeConfirm:
      'Remove {{name}}? This ends only its key: alerts sent from it are no longer known to be yours, and it leaves this list. If you are signed in on that browser, you stay signed in there; to end that too, use “Log out everywhere”.',
    removeCurrentConfirm:
      'Remove this device ({{name}})? This ends only its key: alerts sent from here are no longer known to be yours until you sign in again. You stay signed in here.',
    removeYes: 'Yes, remove',
    removed: 'Device removed.',
    removeFailed: 'The device could not be removed. Try again.',
    alreadyGone: 'This device had already been removed.',
    loadFailed: 'The devices could not be loaded.',
    retry: 'Load the devices again',
    everywhere: 'Log out everywhere',
    everywhereConfirm: 'End every session and remove every device, this one included?',
    everywhereYes: 'Yes, log out everywhere',
    everywhereFailed: 'The sessions could not be ended. Try again.',
  },
};
