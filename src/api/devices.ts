/** The owner's devices (common/api/devices.ts): the device keys their logins issued, and "log out everywhere". */
import type { DeviceView } from '../../common/api/devices';
import { devicesRoutes } from '../../common/api/routes';
import { call } from './client';

export type Device = DeviceView;

/** The owner's device keys, the most recently used first; a non-array answer counts as none. */
export async function fetchDevices(): Promise<Device[]> {
  const data = await call(devicesRoutes.list).json<unknown>();
  return Array.isArray(data) ? (data as Device[]) : [];
}

/** Ends one device key at once. */
export const removeDevice = (id: string) => call(devicesRoutes.remove, { id });

/** Ends every login of the account, this one included, and every device key. */
export const endEverySession = () => call(devicesRoutes.logoutEverywhere);
