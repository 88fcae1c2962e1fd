import { browserTimeZone } from '../../common/profile-rules';
import { updateMe } from '../api/endpoints';
import { useStore } from './index';

/**
 * At login: an account without a time zone takes the browser's, so the times in its SMS are
 * the owner's own. One chosen in setup is kept.
 */
export async function adoptBrowserTimeZone(): Promise<void> {
  const { user, setUser } = useStore.getState();
  const zone = browserTimeZone();
  if (!user || user.time_zone || !zone) return;
  try {
    setUser(await updateMe({ time_zone: zone }));
  } catch (error) {
    // Tried again at the next login; setup shows the zone and lets the owner set it.
    console.warn('Saving the time zone failed', error);
  }
}
