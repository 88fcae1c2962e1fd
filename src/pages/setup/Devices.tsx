import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { describeFailure } from '../../api/client';
import { type Device, fetchDevices, removeDevice } from '../../api/devices';
import type { Message } from '../../api/errors';
import { Confirm } from '../../components/Confirm';
import { forgetDeviceKey } from '../../lib/device-key';
import { useMessageText } from '../../lib/message';
import { dateTime } from '../../lib/time';
import { useStore } from '../../store';
import { logOutEverywhere } from '../../store/actions';

/** Each unit of a relative time and how many of it make the next: past a week, the date itself. */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
];

/** When `iso` was, in `language`: "5 minutes ago", "yesterday" within a week, else the date and time. */
export function whenText(iso: string, language: string, now = Date.now()): string {
  let amount = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(amount) < size) {
      return new Intl.RelativeTimeFormat(language, { numeric: 'auto' }).format(Math.round(amount), unit);
    }
    amount /= size;
  }
  return dateTime(iso, language);
}

/** What to say of a failed call: no answer, too many, the server's fault, or `otherwise`. */
async function failureMessage(error: unknown, otherwise: string): Promise<{ status: number; message: Message }> {
  const { status, message } = await describeFailure(error);
  const general = status === 0 || status === 429 || status >= 500;
  return { status, message: general && message ? message : { key: otherwise } };
}

function DeviceItem({ device, onRemove }: { device: Device; onRemove(device: Device): Promise<void> }) {
  const { t, i18n } = useTranslation();
  const name = device.name ?? t('devices.unknown');
  const lastUse = device.last_used_at ?? device.created_at;
  const when = whenText(lastUse, i18n.language);
  return (
    <li data-testid="device">
      <div>
        <strong>{name}</strong>
        {device.current && <span className="tag">{t('devices.current')}</span>}
        <span className="note">
          <time dateTime={lastUse} title={dateTime(lastUse, i18n.language)}>
            {device.last_used_at ? t('devices.lastUsed', { when }) : t('devices.neverUsed', { when })}
          </time>
        </span>
      </div>
      <Confirm
        label={t('devices.removeNamed', { name })}
        question={t(device.current ? 'devices.removeCurrentConfirm' : 'devices.removeConfirm', { name })}
        confirmLabel={t('devices.removeYes')}
        onConfirm={() => onRemove(device)}
      />
    </li>
  );
}

/**
 * Setup's devices: every device key the owner's logins issued (name, last use), each removable
 * after a confirmation, and "log out everywhere". A copied key stops proving the owner the
 * moment it is removed.
 */
export function Devices() {
  const { t } = useTranslation();
  const text = useMessageText();
  const pushToast = useStore((state) => state.pushToast);
  const [devices, setDevices] = useState<Device[] | null>(null);
  const [loadFailed, setLoadFailed] = useState(false);
  const [problem, setProblem] = useState<Message | null>(null);
  const [leaving, setLeaving] = useState(false);

  const load = useCallback(async () => {
    setLoadFailed(false);
    try {
      setDevices(await fetchDevices());
    } catch {
      setLoadFailed(true);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  async function remove(device: Device) {
    setProblem(null);
    try {
      await removeDevice(device.id);
      setDevices((list) => list?.filter((item) => item.id !== device.id) ?? null);
      // This device's own key ended: the emergency page here stops sending it.
      if (device.current) forgetDeviceKey();
      pushToast('success', { key: 'devices.removed' });
    } catch (error) {
      const { status, message } = await failureMessage(error, 'devices.removeFailed');
      setProblem(status === 404 ? { key: 'devices.alreadyGone' } : message);
      if (status === 404) void load();
    }
  }

  async function everywhere() {
    setProblem(null);
    setLeaving(true);
    try {
      await logOutEverywhere();
    } catch (error) {
      setProblem((await failureMessage(error, 'devices.everywhereFailed')).message);
      setLeaving(false);
    }
  }

  return (
    <section className="panel devices" aria-labelledby="devices-title">
      <h2 id="devices-title">{t('devices.title')}</h2>
      <p className="note">{t('devices.intro')}</p>
      {problem && (
        <p className="form-error" role="alert">
          {text(problem)}
        </p>
      )}
      {loadFailed ? (
        <div className="form-error" role="alert">
          <p>{t('devices.loadFailed')}</p>
          <button type="button" className="button secondary" onClick={() => void load()}>
            {t('devices.retry')}
          </button>
        </div>
      ) : devices === null ? (
        <p role="status">{t('common.loading')}</p>
      ) : devices.length === 0 ? (
        <p>{t('devices.none')}</p>
      ) : (
        <ul className="contact-list device-list">
          {devices.map((device) => (
            <DeviceItem key={device.id} device={device} onRemove={remove} />
          ))}
        </ul>
      )}
      <Confirm
        label={t('devices.everywhere')}
        question={t('devices.everywhereConfirm')}
        confirmLabel={t('devices.everywhereYes')}
        onConfirm={everywhere}
        busy={leaving}
      />
    </section>
  );
}
