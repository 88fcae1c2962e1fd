import { useEffect, useRef, useState } from 'react';
import type { DailyView } from '../../common/api/daily';
import { pathOf } from '../../common/api/paths';
import { dailyRoutes } from '../../common/api/routes';
import type { Language } from '../../common/constants';
import { onOwnersClock } from '../../common/daily-schedule';
import { alertsAt, calendarText, clockText, okOffered, okToday } from '../../common/daily-view';
import { OFFERED_ON_TAP_KEY } from '../../common/push';
import { SW_MESSAGE } from '../../common/sw-messages';
import { daily as enDaily } from '../i18n/locales/en-daily';
import { daily as ptDaily } from '../i18n/locales/pt-daily';
import { readDeviceKey } from '../lib/device-key';
import { call, ownerProof } from './api';
import { offerReminders } from './checkin/push';
import { announceAlarmEnded, askOwnerToSignIn } from './owner-proof-asked';
import { type RemindersHere, remindersHere } from './reminders-here';
import { loadPage } from './storage';

/** `OFFERED_ON_TAP_KEY` is set once "I'm OK today" has asked for notifications: later taps only check in. */
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

/** Setup's words for what this browser gets, where they are the same (src/i18n/locales/*-daily.ts). */
const sameAsSetup = (push: typeof ptDaily.daily.push) => ({
  denied: push.denied,
  unsupported: push.unsupported,
  'home-screen': push.homeScreen,
});

const STRINGS = {
  pt: {
    ok: 'Estou bem hoje',
    done: 'Check-in feito. Obrigado!',
    queued: 'Guardado: é enviado quando a rede voltar, com a hora em que tocou.',
    queuedOpen:
      'Guardado neste telemóvel: é enviado quando a rede voltar com o Alerta aberto (ou quando o abrir de novo), com a hora em que tocou.',
    failed: 'O check-in não foi enviado. Tente de novo.',
    proof: 'Para fazer o check-in aqui, entre uma vez neste telemóvel.',
    signIn: 'Entrar neste telemóvel',
    next: (when: string) => `Próximo check-in diário até ${when}.`,
    paused: (date: string) => `Check-in diário em pausa até ${date}.`,
    alertsAt: (time: string) => `Check-in em falta: os seus contactos são alertados às ${time}.`,
    doneAt: (time: string) => `Feito hoje às ${time} ✓`,
    missed: 'O check-in diário falhou: os seus contactos foram alertados.',
    /** While the missed day's alert is open: "I'm OK today" ends it too. */
    notify: 'Terminar o alerta e avisar os contactos por SMS de que estou bem',
    doneEnded: 'Check-in feito: o alerta terminou.',
    remindHere: 'Lembrar-me aqui',
    reminders: {
      off: 'O lembrete diário chega por e-mail. Toque em “Lembrar-me aqui” para o receber também como notificação neste telemóvel.',
      on: 'Este telemóvel recebe o lembrete diário como notificação (e o e-mail chega na mesma).',
      ...sameAsSetup(ptDaily.daily.push),
      full: 'Os lembretes já vão para 4 aparelhos: remova um em Configurar primeiro. O e-mail chega na mesma.',
      failed: 'Não foi possível ativar o lembrete neste telemóvel. Tente de novo; o e-mail chega na mesma.',
    },
  },
  en: {
    ok: 'I’m OK today',
    done: 'Checked in. Thank you!',
    queued: 'Saved: it goes when the network returns, with the time you tapped.',
    queuedOpen:
      'Saved on this phone: it goes when the network returns with Alerta open (or when you next open it), with the time you tapped.',
    failed: 'The check-in was not sent. Try again.',
    proof: 'To check in here, sign in once on this phone.',
    signIn: 'Sign in on this phone',
    next: (when: string) => `Next daily check-in due by ${when}.`,
    paused: (date: string) => `Daily check-in paused until ${date}.`,
    alertsAt: (time: string) => `Check-in due: your contacts are alerted at ${time}.`,
    doneAt: (time: string) => `Done today at ${time} ✓`,
    missed: 'The daily check-in was missed: your contacts were alerted.',
    notify: 'End the alert and tell my contacts by SMS that I am OK',
    doneEnded: 'Checked in: the alert has ended.',
    remindHere: 'Remind me here',
    reminders: {
      off: 'The daily reminder comes by e-mail. Tap “Remind me here” to get it as a notification on this phone too.',
      on: 'This phone gets the daily reminder as a notification (and the e-mail still comes).',
      ...sameAsSetup(enDaily.daily.push),
      full: 'Reminders already go to 4 devices: remove one in Setup first. The e-mail still comes.',
      failed: 'The reminder could not be turned on for this phone. Try again; the e-mail still comes.',
    },
  },
} as const;

/**
 * Where the browser has Background Sync, a queued tap goes when the network returns even with
 * Alerta closed; elsewhere (Safari, Firefox) the queue goes when a page of Alerta is open.
 */
const backgroundSync = () => typeof window !== 'undefined' && 'SyncManager' in window;

/** Calls `listener` when the service worker asks this page to show "I'm OK today" (its daily reminder tapped). */
function onShowDaily(listener: () => void): () => void {
  const container = typeof navigator === 'undefined' ? undefined : navigator.serviceWorker;
  if (!container) return () => undefined;
  const handler = (event: MessageEvent) => {
    if ((event.data as { type?: unknown } | null)?.type === SW_MESSAGE.showDaily) listener();
  };
  container.addEventListener('message', handler);
  return () => container.removeEventListener('message', handler);
}

/** Opens the page's sign-in ("Is this your phone?", SignIn.tsx), offered by then, and moves focus to its username field. */
function openSignIn(): void {
  askOwnerToSignIn();
  // The page draws the sign-in on the question: it is there on the next frame.
  setTimeout(() => {
    const details = document.querySelector<HTMLDetailsElement>('details.owner-sign-in');
    if (!details) return;
    details.open = true;
    details.scrollIntoView?.({ block: 'center' });
    // Straight to the username: the form is what the owner came for, not its heading.
    (details.querySelector<HTMLElement>('input[name="username"]') ?? details.querySelector('summary'))?.focus();
  }, 0);
}

/** The due time on the owner's clock (their `time_zone`, as the schedule is), not this device's. */
export const whenText = (iso: string, language: Language, timeZone?: string | null) =>
  onOwnersClock(iso, localeOf(language), timeZone, {
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });

/** The locale the page writes times and dates in. */
const localeOf = (language: Language) => (language === 'en' ? 'en-GB' : 'pt-PT');

/**
 * The emergency page's "I'm OK today", on the owner's phone only (it reads and checks in with the
 * device key: a link alone can neither see when the owner is expected nor quiet the alarm).
 * Offline, the service worker queues the tap, sent with the time it was tapped. Opened from the
 * daily reminder (`fromReminder`), or asked by the worker when the reminder is tapped while this
 * page is open, the button is brought into view and focused; where this page cannot check in (no
 * key, or its key refused), it says so and offers the page's sign-in, and once the owner signed
 * in there (`signedIn` counts it) it reads the status again and shows the button. Whatever the
 * owner acted on and is gone (the button after a check-in, "Remind me here" once on), focus
 * moves to the sentence that says what happened.
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
  signedIn = 0,
}: {
  token: string;
  language: Language;
  fromReminder?: boolean;
  /** How many times the owner signed in on this page (OwnerSignIn): each reads the status again. */
  signedIn?: number;
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
  // The missed day's alert is ended with the check-in: whether the contacts are told too.
  const [notify, setNotify] = useState(true);
  // The worker asked for the button (its reminder tapped while this page was open).
  const [asked, setAsked] = useState(0);
  const button = useRef<HTMLButtonElement>(null);
  const noteRef = useRef<HTMLParagraphElement>(null);
  const hereRef = useRef<HTMLParagraphElement>(null);
  /** The button is to be brought into view and focused once it shows. */
  const bring = useRef(fromReminder);
  /** The sentence focus moves to once what had it is gone. */
  const focusNext = useRef<'note' | 'here' | null>(null);

  useEffect(
    () =>
      onShowDaily(() => {
        bring.current = true;
        setAsked((count) => count + 1);
      }),
    [],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: `signedIn` and `asked` are why it reads again.
  useEffect(() => {
    if (!readDeviceKey()) {
      if (bring.current) {
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
        if (answer.ok) {
          setRefused(false);
          setView(answer.value);
        } else if (bring.current && answer.status === 403) {
          setRefused(true);
          if (answer.code === 'owner_proof_required') askOwnerToSignIn();
        }
      },
    );
    return () => {
      live = false;
    };
  }, [token, signedIn, asked]);

  const shown = view !== null && okOffered(view, Date.now());
  // biome-ignore lint/correctness/useExhaustiveDependencies: a status read again (`view`) brings the button anew.
  useEffect(() => {
    if (!shown || !bring.current || !button.current) return;
    bring.current = false;
    button.current.scrollIntoView?.({ block: 'center' });
    button.current.focus();
  }, [shown, view]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the sentences change.
  useEffect(() => {
    const target =
      focusNext.current === 'note' ? noteRef.current : focusNext.current === 'here' ? hereRef.current : null;
    if (!target) return;
    focusNext.current = null;
    target.focus();
  }, [note, here]);

  if (refused)
    return (
      <section className="daily-ok" data-testid="daily-ok">
        <p className="hint" role="status">
          {s.proof}
        </p>
        <button type="button" className="button secondary" onClick={openSignIn}>
          {s.signIn}
        </button>
      </section>
    );
  if (!view?.enabled) return null;

  /**
   * Asks for notifications and registers this browser; called straight from a tap (the prompt
   * needs it). `onAsked` runs only once the browser is really asked.
   */
  function offer(fromButton: boolean, onAsked?: () => void) {
    setOffering(true);
    void offerReminders(token, publicKey, onAsked).then((result) => {
      // "Remind me here" is gone once on (or past asking): focus goes to what it says now.
      if (fromButton && result !== 'off' && result !== 'failed') focusNext.current = 'here';
      setHere(result);
      setOffering(false);
    });
  }

  async function ok() {
    if (here === 'off' && !offeredOnTap()) offer(false, noteOfferedOnTap);
    setBusy(true);
    const at = new Date().toISOString();
    const answer = await call<DailyView>(pathOf(dailyRoutes.ok, { token }), {
      method: dailyRoutes.ok.method,
      cache: 'no-store',
      // The key lets the service worker queue it offline; the server counts it at `at`.
      headers: { 'content-type': 'application/json', 'idempotency-key': `daily-ok-${at}`, ...ownerProof() },
      body: JSON.stringify({ at, ...(view?.status === 'missed' ? { notify } : {}) }),
    });
    setBusy(false);
    if (answer.ok && answer.status === 202) setNote(backgroundSync() ? s.queued : s.queuedOpen);
    else if (answer.ok) {
      // The button goes (nothing due now): focus moves to the sentence saying it went.
      focusNext.current = 'note';
      setView(answer.value);
      const ended = (answer.value as { alerts_ended?: number }).alerts_ended ?? 0;
      setNote(ended > 0 ? s.doneEnded : s.done);
      if (ended > 0) announceAlarmEnded();
    } else if (answer.status === 403) {
      setNote(s.proof);
      // As every change only the owner may make: the page offers its sign-in.
      if (answer.code === 'owner_proof_required') askOwnerToSignIn();
    } else setNote(s.failed);
  }

  const now = Date.now();
  const alerted = alertsAt(view);
  const done = okToday(view, now, timeZone);
  return (
    <section className="daily-ok" data-testid="daily-ok">
      {view.status === 'paused' && view.paused_until && (
        <p>{s.paused(calendarText(view.paused_until, localeOf(language)))}</p>
      )}
      {view.status === 'missed' && <p role="alert">{s.missed}</p>}
      {alerted !== null && (
        <p className="daily-due" data-testid="daily-due">
          {s.alertsAt(clockText(alerted, localeOf(language), timeZone))}
        </p>
      )}
      {done !== null && !shown && (
        <p className="daily-done">{s.doneAt(clockText(done, localeOf(language), timeZone))}</p>
      )}
      {view.status !== 'paused' && view.next_due_at && !shown && (
        <p>{s.next(whenText(view.next_due_at, language, timeZone))}</p>
      )}
      {shown && view.status === 'missed' && (
        <label className="check">
          <input type="checkbox" checked={notify} onChange={(event) => setNotify(event.target.checked)} /> {s.notify}
        </label>
      )}
      {shown && (
        <button type="button" className="button calm" ref={button} disabled={busy} onClick={() => void ok()}>
          {s.ok}
        </button>
      )}
      {note && (
        <p className="hint" role="status" tabIndex={-1} ref={noteRef}>
          {note}
        </p>
      )}
      {here && here !== 'no-key' && (
        <div className="daily-push" data-testid="daily-push">
          <p className="hint" role="status" tabIndex={-1} ref={hereRef}>
            {s.reminders[here]}
          </p>
          {(here === 'off' || here === 'failed') && (
            <button type="button" className="button secondary" disabled={offering} onClick={() => offer(true)}>
              {s.remindHere}
            </button>
          )}
        </div>
      )}
    </section>
  );
}
