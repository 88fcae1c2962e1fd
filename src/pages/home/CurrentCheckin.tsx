import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CheckinView } from '../../../common/api/checkins';
import { fetchCurrentCheckin } from '../../api/endpoints';
import { timeOfDay } from '../../lib/time';

/** How often the card asks again: the check-in moves on (overdue, fired) by the server's clock. */
const REFRESH_MS = 60_000;

/**
 * The check-in behind the owner's token, while it runs or for an hour after it ended. It is
 * started and ended on the emergency page (where the PIN is asked), so the card links there.
 */
export function CurrentCheckin({ token }: { token: string }) {
  const { t, i18n } = useTranslation();
  const [checkin, setCheckin] = useState<CheckinView | null>(null);

  useEffect(() => {
    let live = true;
    const load = async () => {
      try {
        const found = await fetchCurrentCheckin(token);
        if (live) setCheckin(found);
      } catch (error) {
        // The home page stays as it is; the next round tries again.
        console.warn('Loading the current check-in failed', error);
      }
    };
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [token]);

  if (!checkin) return null;
  const time = (iso: string) => timeOfDay(iso, i18n.language);
  const active = checkin.status === 'running' || checkin.status === 'overdue';
  const ended = checkin.ended_at ?? checkin.fires_at;
  return (
    <section className="banner checkin" data-status={checkin.status} aria-labelledby="checkin-title">
      <h2 id="checkin-title">{t('checkins.currentTitle')}</h2>
      {active ? (
        <>
          <p>{t(`checkins.${checkin.status}`, { due: time(checkin.due_at) })}</p>
          <p>{t('checkins.firesAt', { time: time(checkin.fires_at) })}</p>
        </>
      ) : (
        <p>{t(`checkins.${checkin.status}`, { time: time(ended) })}</p>
      )}
      {checkin.note && <p className="note">{checkin.note}</p>}
      <a className={`button ${active ? 'primary' : 'secondary'}`} href={`/public/${encodeURIComponent(token)}/`}>
        {active ? t('checkins.openPage') : t('checkins.openPageEnded')}
      </a>
    </section>
  );
}
