/**
 * The owner's devices: each device key a login of theirs gave an emergency page (the owner's
 * proof beside the link), listed so a copied one can be taken back, and "log out everywhere".
 */
import { z } from 'zod';
import { devicesRoutes } from './routes.js';
import { type Contract, errorResponses, idParams, noContent, operation, SECURITY } from './shared.js';

/** One device key as the owner's list shows it (the key itself is never shown again). */
export const deviceView = z
  .object({
    id: z.string(),
    name: z
      .string()
      .nullable()
      .describe('The browser and system it was issued to ("Chrome · Android"); null when unknown.'),
    created_at: z.string(),
    last_used_at: z.string().nullable().describe('When an alert or a call last carried it; null if never.'),
    current: z.boolean().describe('Issued by the login making this request.'),
  })
  .meta({ id: 'Device' });

export type DeviceView = z.output<typeof deviceView>;

const accounts = { tags: ['accounts'] } as const;

export const devicesApi = {
  list: {
    ...devicesRoutes.list,
    ...operation('listDevices', 'List the devices holding a device key', SECURITY.session),
    ...accounts,
    description:
      'The signed-in owner’s device keys, the most recently used first. A key ends when it is removed, when the login that issued it logs out, and all of them with a new link, “this wasn’t me”, “log out everywhere” or a password reset.',
    response: { 200: z.array(deviceView), ...errorResponses(401) },
  },
  remove: {
    ...devicesRoutes.remove,
    ...operation('removeDevice', 'End one device key', SECURITY.session),
    ...accounts,
    description:
      'Ends one device key at once: what it proved (the owner’s alerts, “I’m safe”, push reminders) is refused to whoever holds a copy. 404 for a key of another account.',
    params: idParams,
    response: { 204: noContent, ...errorResponses(401, 404) },
  },
  logoutEverywhere: {
    ...devicesRoutes.logoutEverywhere,
    ...operation('logoutEverywhere', 'Log out everywhere', SECURITY.session),
    ...accounts,
    description: 'Ends every login of the account, this one included, and every device key.',
    response: { 204: noContent, ...errorResponses(401) },
  },
} as const satisfies Contract<typeof devicesRoutes>;
