import { useEffect, useRef, useState } from 'react';
import type { DailyView } from '../../common/api/daily';
import { pathOf } from '../../common/api/paths';
import { dailyRoutes } from '../../common/api/routes';
import type { Language } from '../../common/constants';
import { OK_AHEAD_MS, onOwnersClock } from '../../common/daily-schedule';
import { readDeviceKey } from '../lib/device-key';
import { call, ownerProof } from './api';
import { offerReminders } from './checkin/push';
import { askOwnerToSignIn } from './owner-proof-asked';
import { type RemindersHere, remindersHere } from './reminders-here';
import { loadPage } from './storage';

/** Set once "I'm OK today" has offered the reminder's notifications: later taps only check in. */
export const OFFERED_ON_TAP_KEY = 'alerta.daily-push-offered';

function offeredOnTap(): boolean {
  try {
    return localStorage.getItem(OFFERED_ON_TAP_KEY) !== null;
  } catch {
    return true;
  }
}

function noteOfferedOnTap(): void {
  try {
    localStorage.setItem(OFFERED_ON_TAP_KEY, new Date().toISOString());
  } catch {
    // Storage refused: "Remind me here" still offers it.
  }
}

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
    remindHere: 'Lembrar-me aqui',
    reminders: {
      off: 'O lembrete diário chega por e-mail. Toque em “Lembrar-me aqui” para o receber também como notificação neste telemóvel.',
      on: 'Este telemóvel recebe o lembrete diário como notificação (e o e-mail chega na mesma).',
      denied:
        'As notificações do Alerta estão bloqueadas neste navegador: o lembrete diário chega só por e-mail. Pode permiti-las nas definições do navegador.',
      unsupported: 'Este navegador não mostra notificações: o lembrete diário chega só por e-mail.',
      'home-screen':
        'No iPhone, o lembrete só chega como notificação com o Alerta aberto pelo ícone no ecrã principal (iOS 16.4 ou posterior). O e-mail chega na mesma.',
      full: 'Os lembretes já vão para 4 aparelhos: remova um em Configurar primeiro. O e-mail chega na mesma.',
      failed: 'Não foi possível ativar o lembrete neste telemóvel. Tente de novo; o e-mail chega na mesma.',
    },
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
    remindHere: 'Remind me here',
    reminders: {
      off: 'The daily reminder comes by e-mail. Tap “Remind me here” to get it as a notification on this phone too.',
      on: 'This phone gets the daily reminder as a notification (and the e-mail still comes).',
      denied:
        'Notifications from Alerta are blocked in this browser: the daily reminder comes by e-mail only. You can allow them in the browser’s settings.',
      unsupported: 'This browser cannot show notifications: the daily reminder comes by e-mail only.',
      'home-screen':
        'On iPhone, the reminder only arrives as a notification with Alerta opened from its home-screen icon (iOS 16.4 or later). The e-mail still comes.',
      full: 'Reminders already go to 4 devices: remove one in Setup first. The e-mail still comes.',
      failed: 'The reminder could not be turned on for this phone. Try again; the e-mail still comes.',
    },
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
 *
 * It also says whether this phone gets the daily reminder as a notification (the e-mail always
 * goes): where it does not yet, the first tap on "I'm OK today" asks for notifications and
 * registers this browser (a tap: browsers ask only on a gesture), and "Remind me here" does it
 * any time after. A browser already registered under this device's key is not registered again.
 */
export function DailyOk({
  token,
  language,
  fromReminder = false,
  publicKey,
}: {
  token: string;
  language: Language;
  fromReminder?: boolean;
  /** The VAPID public key (the page's `push_public_key`) the reminder's subscription is made with. */
  publicKey?: string | null | undefined;
}) {
  const s = STRINGS[language] ?? STRINGS.en;
  const [view, setView] = useState<DailyView | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [timeZone, setTimeZone] = useState<string | null>(null);
  const [refused, setRefused] = useState(false);
  const [here, setHere] = useState<RemindersHere | null>(null);
  const [offering, setOffering] = useState(false);
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
    void remindersHere().then((found) => live && setHere(found));
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

  /** Asks for notifications and registers this browser; called straight from a tap (the prompt needs it). */
  function offer() {
    setOffering(true);
    void offerReminders(token, publicKey).then((result) => {
      setHere(result);
      setOffering(false);
    });
  }

  async function ok() {
    if (here === 'off' && !offeredOnTap()) {
      noteOfferedOnTap();
      offer();
    }
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
      {here && here !== 'no-key' && (
        <div className="daily-push" data-testid="daily-push">
          <p className="hint" role="status">
            {s.reminders[here]}
          </p>
          {(here === 'off' || here === 'failed') && (
            <button type="button" className="button secondary" disabled={offering} onClick={offer}>
              {s.remindHere}
            </button>
          )}
        </div>
      )}
    </section>
  );
}
