import { alertMessage, type LocationError } from '../../common/sms-text';
import type { PageData } from './api';
import type { Fix } from './geo';

/** The SMS the server would send, from what the page knows now. */
export function messageText(
  page: PageData,
  mode: 'real' | 'test',
  location: Fix | null,
  error: LocationError | null | undefined,
  liveUrl?: string,
) {
  return alertMessage({
    language: page.language === 'en' ? 'en' : 'pt',
    ownerName: page.owner_name,
    timeZone: page.time_zone ?? null,
    mode,
    location,
    locationError: page.gps_enabled ? error : 'not_in_plan',
    ...(liveUrl ? { liveUrl } : {}),
  });
}
