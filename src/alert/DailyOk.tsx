import { useEffect, useRef, useState } from 'react';
import type { DailyView } from '../../common/api/daily';
import { pathOf } from '../../common/api/paths';
import { dailyRoutes } from '../../common/api/routes';
import type { Language } from '../../common/constants';
import { OK_AHEAD_MS, onOwnersClock } from '../../common/daily-schedule';
import { readDeviceKey } from '../lib/device-key';
import { call, ownerProof } from './api';
import { askOwnerToSignIn } from './owner-proof-asked';
import { loadPage } from './storage';

const STRINGS = {
  pt: {
    ok: 'Estou bem hoje',
    done: 'Check-in feito. Obrigado!',
    queued: 'Guardado: é enviado quando a rede voltar, com a hora em que tocou.',
    failed: 'O check-in não foi enviado. Tente de novo.',
    proof: 'Para fazer o check-in aqui, entre uma vez neste telemóvel.',
    next: (when: string) => `Próximo check-in diário até ${when}.`,
    paused: (date: string) => `Check-in diário em pausa até ${date}.`,
    missed: 'O check-in diário falhou: os seus contactos foram alertados.',
  },
  en: {
    ok: 'I’m OK today',
    done: 'Checked in. Thank you!',
    queued: 'Saved: it goes when the network returns, with the time you tapped.',
    failed: 'The check-in was not sent. Try again.',
    proof: 'To check in here, sign in once on this phone.',
    next: (when: string) => `Next daily check-in due by ${when}.`,
    paused: (date: string) => `Daily check-in paused until ${date}.`,
    missed: 'The daily check-in was missed: your contacts were alerted.',
  },
} as const;

/** The due time on the owner's clock (their `time_zone`, as the schedule is), not this device's. */
export const whenText = (iso: string, language: Language, timeZone?: string | null) =>
  onOwnersClock(iso, language === 'en' ? 'en-GB' : 'pt-PT', timeZone, {
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });

/** Whether the button shows: due, missed, or the due time is coming. */
export const okShown = (view: DailyView, now: number) =>
  view.status === 'due' ||
  view.status === 'missed' ||
  (view.status === 'waiting' && view.next_due_at !== null && Date.parse(view.next_due_at) - now <= OK_AHEAD_MS);

/**
 * The emergency page's "I'm OK today", on the owner's phone only (it reads and checks in with the
 * device key: a link alone can neither see when the owner is expected nor quiet the alarm).
 * Offline, the service worker queues the tap, sent with the time it was tapped. Opened from the
 * daily reminder (`fromReminder`), the button is brought into view and focused; where this page
 * cannot check in (no key, or its key refused), it says so and offers the page's sign-in.
 */
export function DailyOk({
  token,
  language,
  fromReminder = false,
}: {
  token: string;
  language: Language;
  fromReminder?: boolean;
}) {
  const s = STRINGS[language] ?? STRINGS.en;
  const [view, setView] = useState<DailyView | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [timeZone, setTimeZone] = useState<string | null>(null);
  const [refused, setRefused] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const brought = useRef(false);

  useEffect(() => {
    if (!readDeviceKey()) {
      if (fromReminder) {
        setRefused(true);
        askOwnerToSignIn();
      }
      return;
    }
    let live = true;
    // The page data this page keeps carries the owner's time zone.
    void loadPage(token).then((cached) => {
      if (live && cached?.data.time_zone) setTimeZone(cached.data.time_zone);
    });
    void call<DailyView>(pathOf(dailyRoutes.status, { token }), { cache: 'no-store', headers: ownerProof() }).then(
      (answer) => {
        if (!live) return;
        if (answer.ok) setView(answer.value);
        else if (fromReminder && answer.status === 403) {
          setRefused(true);
          if (answer.code === 'owner_proof_required') askOwnerToSignIn();
        }
      },
    );
    return () => {
      live = false;
    };
  }, [token, fromReminder]);

  const shown = view?.enabled === true && okShown(view, Date.now());
  useEffect(() => {
    if (!fromReminder || !shown || brought.current || !button.current) return;
    brought.current = true;
    button.current.scrollIntoView?.({ block: 'center' });
    button.current.focus();
  }, [fromReminder, shown]);

  if (refused)
    return (
      <section className="daily-ok" data-testid="daily-ok">
        <p className="hint" role="status">
          {s.proof}
        </p>
      </section>
    );
  if (!view?.enabled) return null;

  async function ok() {
    setBusy(true);
    const at = new Date().toISOString();
    const answer = await call<DailyView>(pathOf(dailyRoutes.ok, { token }), {
      method: dailyRoutes.ok.method,
      cache: 'no-store',
      // The key lets the service worker queue it offline; the server counts it at `at`.
      headers: { 'content-type': 'application/json', 'idempotency-key': `daily-ok-${at}`, ...ownerProof() },
      body: JSON.stringify({ at }),
    });
    setBusy(false);
    if (answer.ok && answer.status === 202) setNote(s.queued);
    else if (answer.ok) {
      setView(answer.value);
      setNote(s.done);
    } else if (answer.status === 403) {
      setNote(s.proof);
      // As every change only the owner may make: the page offers its sign-in.
      if (answer.code === 'owner_proof_required') askOwnerToSignIn();
    } else setNote(s.failed);
  }

  return (
    <section className="daily-ok" data-testid="daily-ok">
      {view.status === 'paused' && view.paused_until && <p>{s.paused(view.paused_until)}</p>}
      {view.status === 'missed' && <p role="alert">{s.missed}</p>}
      {view.status !== 'paused' && view.next_due_at && !shown && (
        <p>{s.next(whenText(view.next_due_at, language, timeZone))}</p>
      )}
      {shown && (
        <button type="button" className="button" ref={button} disabled={busy} onClick={() => void ok()}>
          {s.ok}
        </button>
      )}
      {note && (
        <p className="hint" role="status">
          {note}
        </p>
      )}
    </section>
  );
}
