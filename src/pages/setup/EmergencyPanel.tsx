import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { COUNTDOWN_CHOICES } from '../../../common/constants';
import { rotateToken, updateMe } from '../../api/endpoints';
import type { User } from '../../api/types';
import { Confirm } from '../../components/Confirm';
import { useStore } from '../../store';
import { ensureDeviceKey, loadUser, renewDeviceKey } from '../../store/actions';
import { EscalationField } from './EscalationField';
import { IphoneInstall } from './IphoneInstall';

/** The user's token, from the user or their profile (both readings of the spec exist). */
export const tokenOf = (user: User) => user.token ?? user.profile.token ?? null;

function LinkRow({ label, url, hint }: { label: string; url: string; hint: string }) {
  const { t } = useTranslation();
  const pushToast = useStore((state) => state.pushToast);
  async function copy() {
    try {
      await navigator.clipboard.writeText(url);
      pushToast('success', { key: 'setup.copied' });
    } catch {
      pushToast('error', { key: 'setup.copyFailed' });
    }
  }
  return (
    <div className="link-row">
      <h3>{label}</h3>
      <p className="note">{hint}</p>
      <code className="url">{url}</code>
      <div className="actions">
        <a className="button primary" href={url}>
          {t('setup.open', { label })}
        </a>
        <button type="button" className="button secondary" onClick={() => void copy()}>
          {t('setup.copy', { label })}
        </button>
      </div>
    </div>
  );
}

/** The Emergency Buttons panel (only with a token and an active subscription): both links, countdown, escalation, token rotation. */
export function EmergencyPanel({ user }: { user: User }) {
  const { t } = useTranslation();
  const pushToast = useStore((state) => state.pushToast);
  const countdownId = useId();
  const [busy, setBusy] = useState(false);
  const token = tokenOf(user);
  // This browser's emergency page sends the key with its alerts: they are then the owner's own.
  useEffect(() => {
    void ensureDeviceKey(user.username);
  }, [user.username]);
  if (!token || !user.profile.has_premium) return null;
  const origin = window.location.origin;

  async function saveCountdown(seconds: (typeof COUNTDOWN_CHOICES)[number]) {
    setBusy(true);
    try {
      await updateMe({ alert_countdown_seconds: seconds });
      await loadUser();
      pushToast('success', { key: 'setup.countdownSaved' });
    } catch {
      pushToast('error', { key: 'setup.countdownFailed' });
    } finally {
      setBusy(false);
    }
  }

  async function rotate() {
    setBusy(true);
    try {
      await rotateToken();
      // The new links ended every device key, this device's too: it gets a new one.
      await Promise.all([loadUser(), renewDeviceKey(user.username)]);
      pushToast('success', { key: 'setup.rotated' });
    } catch {
      pushToast('error', { key: 'setup.rotateFailed' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel emergency" aria-labelledby="emergency-title">
      <h2 id="emergency-title">{t('setup.emergencyTitle')}</h2>
      <LinkRow label={t('setup.testLink')} hint={t('setup.testHint')} url={`${origin}/test/${token}/`} />
      <LinkRow label={t('setup.realLink')} hint={t('setup.realHint')} url={`${origin}/public/${token}/`} />
      <IphoneInstall />
      <div className="field">
        <label htmlFor={countdownId}>{t('setup.countdown')}</label>
        <select
          id={countdownId}
          value={user.profile.alert_countdown_seconds}
          disabled={busy}
          onChange={(event) => {
            const seconds = COUNTDOWN_CHOICES.find((choice) => choice === Number(event.target.value));
            if (seconds !== undefined) void saveCountdown(seconds);
          }}
        >
          {COUNTDOWN_CHOICES.map((seconds) => (
            <option key={seconds} value={seconds}>
              {seconds === 0 ? t('setup.countdownNone') : t('setup.countdownSeconds', { count: seconds })}
            </option>
          ))}
        </select>
        <p className="hint">{t('setup.countdownHint')}</p>
      </div>
      <EscalationField user={user} />
      <Confirm
        label={t('setup.rotate')}
        question={t('setup.rotateConfirm')}
        confirmLabel={t('setup.rotateYes')}
        onConfirm={rotate}
        busy={busy}
      />
    </section>
  );
}
