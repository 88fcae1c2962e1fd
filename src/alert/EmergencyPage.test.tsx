import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { forgetDeviceKey, saveDeviceKey } from '../lib/device-key';
import type { PageData } from './api';
import { dailyView } from './daily-test-fixtures';
import { EmergencyPage } from './EmergencyPage';
import type { Emergency, EmergencyState, Phase } from './emergency';
import { PositionWatch } from './geo';
import { loadLater } from './later-load';
import { resetAskedToSignIn } from './owner-proof-asked';

// A new version is waiting from the start.
vi.mock('./sw-client', () => ({
  hasUpdate: () => true,
  onUpdateReady: (listener: () => void) => {
    listener();
    return () => undefined;
  },
  applyUpdate: vi.fn(),
  offlineUnavailable: () => offline.unavailable,
  onOfflineUnavailable: () => () => undefined,
  onReplayed: () => () => undefined,
  replayQueued: async () => undefined,
}));
const offline = vi.hoisted(() => ({ unavailable: false }));

/** A stand-in for the page's controller, driven by hand; `page` changes its data. */
function fakeEmergency(phase: Phase, page: Partial<PageData> = {}) {
  let state: EmergencyState = {
    phase,
    alert: null,
    page: {
      owner_name: 'Ana',
      language: 'pt',
      gps_enabled: true,
      countdown_seconds: 5,
      contacts: [
        { name: 'Rui', phone_number: '+351912345678' },
        { name: 'Eva', phone_number: '+351934567890' },
      ],
      messages: { real: '', test: '' },
      ...page,
    },
  };
  const listeners = new Set<() => void>();
  const emergency = {
    token: 'tok',
    geo: new PositionWatch(),
    subscribe: (l: () => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    getState: () => state,
    cancel: vi.fn(),
    send: vi.fn(),
    ownerSignedIn: vi.fn(async () => undefined),
  };
  const move = (next: Phase) =>
    act(() => {
      state = { ...state, phase: next };
      for (const l of listeners) l();
    });
  return { emergency: emergency as unknown as Emergency, move };
}

/** The page once the server accepted its alert, with these deliveries. */
const sentAlert = (fields: object, deliveries: object[]) => ({
  name: 'sent' as const,
  alert: {
    id: 'a1',
    public_id: 'p1',
    mode: 'real' as const,
    created_at: '2026-11-23T10:00:00Z',
    proven: true,
    recently_alerted: false,
    number_busy: false,
    deliveries,
    ...fields,
  } as Extract<Phase, { name: 'sent' }>['alert'],
});

describe('emergency page: its first draw', () => {
  it('counts down and cancels before anything else has loaded; the SMS app link takes its text once that has', async () => {
    const { emergency } = fakeEmergency({ name: 'countdown', remaining: 5 });
    render(<EmergencyPage emergency={emergency} />);
    expect(screen.getByText('O alerta sai em 5 s')).toBeInTheDocument();
    screen.getByRole('button', { name: 'Cancelar' }).click();
    expect(emergency.cancel).toHaveBeenCalledOnce();
    // Drawn in its place at once, a link to the SMS app once the text's rules have loaded.
    expect(screen.getByText('Enviar do meu telemóvel (SMS)')).not.toHaveAttribute('href');
    const sms = await screen.findByRole('link', { name: 'Enviar do meu telemóvel (SMS)' });
    expect(sms.getAttribute('href')).toMatch(/^sms:\+351912345678,\+351934567890\?body=/);
  });
});

describe('emergency page', () => {
  // The parts drawn after the first draw, loaded before each test draws the page.
  beforeAll(() => loadLater());

  it('never offers the new version during a countdown, a send or a queued alert', () => {
    const { emergency, move } = fakeEmergency({ name: 'countdown', remaining: 4 });
    render(<EmergencyPage emergency={emergency} />);
    expect(screen.getByRole('heading', { name: 'Alerta de Ana' })).toBeInTheDocument();
    expect(screen.getByText('O alerta sai em 4 s')).toBeInTheDocument();
    expect(screen.queryByText('Há uma nova versão do Alerta.')).toBeNull();
    move({ name: 'sending' });
    expect(screen.queryByText('Há uma nova versão do Alerta.')).toBeNull();
    move({ name: 'queued' });
    expect(
      screen.getByText('Sem rede: o alerta está em fila e será enviado quando houver ligação.'),
    ).toBeInTheDocument();
    expect(screen.queryByText('Há uma nova versão do Alerta.')).toBeNull();
    move({ name: 'cancelled' });
    expect(screen.getByText('Há uma nova versão do Alerta.')).toBeInTheDocument();
  });

  it('has one large Cancel and lists the cached contacts at once', () => {
    const { emergency } = fakeEmergency({ name: 'countdown', remaining: 5 });
    render(<EmergencyPage emergency={emergency} />);
    screen.getByRole('button', { name: 'Cancelar' }).click();
    expect(emergency.cancel).toHaveBeenCalledOnce();
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Rui', 'Eva']);
    const sms = screen.getByRole('link', { name: 'Enviar do meu telemóvel (SMS)' }).getAttribute('href') ?? '';
    expect(sms.startsWith('sms:+351912345678,+351934567890?body=')).toBe(true);
  });

  it('says it is not available offline when the worker cannot start, and still counts down to send', () => {
    offline.unavailable = true;
    try {
      const { emergency } = fakeEmergency({ name: 'countdown', remaining: 5 });
      render(<EmergencyPage emergency={emergency} />);
      expect(
        screen.getByText('Não disponível sem rede neste navegador: com rede, o alerta sai na mesma.'),
      ).toBeInTheDocument();
      expect(screen.getByText('O alerta sai em 5 s')).toBeInTheDocument();
    } finally {
      offline.unavailable = false;
    }
  });

  it('says the contacts were alerted a moment ago when their SMS were withheld, and to follow the live link', () => {
    // The live panel asks the server for its state: left pending here.
    vi.stubGlobal('fetch', () => new Promise(() => undefined));
    try {
      const { emergency } = fakeEmergency({
        name: 'sent',
        alert: {
          id: 'a1',
          public_id: 'p1',
          mode: 'real',
          reason: 'button',
          created_at: '2026-11-23T10:00:00Z',
          proven: false,
          recently_alerted: true,
          number_busy: false,
          deliveries: [
            { contact_name: 'Rui', status: 'failed', withheld: true, withheld_reason: 'recently_alerted' },
            { contact_name: 'Eva', status: 'sent' },
          ],
          escalation: { status: 'waiting', at: '2026-11-23T10:05:00Z', calls: [] },
        },
      });
      render(<EmergencyPage emergency={emergency} />);
      expect(screen.getByTestId('recently-alerted')).toHaveTextContent(
        'Os seus contactos foram alertados há pouco: este alerta ficou registado e eles acompanham-no pela ligação em direto.',
      );
      const items = screen.getAllByRole('listitem').map((li) => li.textContent);
      expect(items).toContain('Rui já alertado há pouco');
      expect(items).toContain('Eva enviado');
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('a number busy with other senders is never called "alerted recently": it says the SMS did not go', () => {
    vi.stubGlobal('fetch', () => new Promise(() => undefined));
    try {
      const { emergency } = fakeEmergency(
        sentAlert({ number_busy: true }, [
          { contact_name: 'Rui', status: 'failed', withheld: true, withheld_reason: 'number_busy' },
          { contact_name: 'Eva', status: 'sent' },
        ]),
      );
      render(<EmergencyPage emergency={emergency} />);
      expect(screen.queryByTestId('recently-alerted')).toBeNull();
      expect(screen.getByTestId('number-busy')).toHaveTextContent(
        'Alguns contactos não receberam SMS: o número deles recebeu demasiadas mensagens na última hora.',
      );
      const items = screen.getAllByRole('listitem').map((li) => li.textContent);
      expect(items).toContain('Rui não enviado: número ocupado');
      expect(items.join()).not.toContain('alertado há pouco');
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('offers "Is this your phone?" without a key, or when the alert was not taken as the owner’s; not otherwise', () => {
    vi.stubGlobal('fetch', () => new Promise(() => undefined));
    const offer = 'É o seu telemóvel? Inicie sessão uma vez para que este botão seja seu';
    try {
      const delivered = [{ contact_name: 'Rui', status: 'sent' }];
      const first = render(
        <EmergencyPage emergency={fakeEmergency(sentAlert({ proven: false }, delivered)).emergency} />,
      );
      expect(screen.getByText(offer)).toBeInTheDocument();
      first.unmount();
      saveDeviceKey('key-1', 'ana');
      const second = render(<EmergencyPage emergency={fakeEmergency(sentAlert({}, delivered)).emergency} />);
      expect(screen.queryByText(offer)).toBeNull();
      second.unmount();
      render(<EmergencyPage emergency={fakeEmergency(sentAlert({ proven: false }, delivered)).emergency} />);
      expect(screen.getByText(offer)).toBeInTheDocument();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('keeps "Is this your phone?" out of the way during the countdown', () => {
    const { emergency } = fakeEmergency({ name: 'countdown', remaining: 5 });
    render(<EmergencyPage emergency={emergency} />);
    expect(screen.queryByTestId('owner-sign-in')).toBeNull();
  });

  const offer = 'É o seu telemóvel? Inicie sessão uma vez para que este botão seja seu';

  it('offers the sign-in right there, focused, when "I’m safe" is refused for want of proof (even with a key), and keeps the confirmation', async () => {
    saveDeviceKey('key-of-a-removed-device', 'ana');
    // The live panel's own reads stay pending; "I'm safe" is refused: only the owner ends an alert.
    vi.stubGlobal('fetch', (url: string, init?: RequestInit) =>
      init?.method === 'POST' && url.endsWith('/resolve/')
        ? Promise.resolve(
            new Response(JSON.stringify({ detail: 'Only the owner can do this.', code: 'owner_proof_required' }), {
              status: 403,
              headers: { 'content-type': 'application/json' },
            }),
          )
        : new Promise(() => undefined),
    );
    try {
      render(
        <EmergencyPage emergency={fakeEmergency(sentAlert({}, [{ contact_name: 'Rui', status: 'sent' }])).emergency} />,
      );
      expect(screen.queryByText(offer)).toBeNull();
      fireEvent.click(screen.getByRole('button', { name: 'Estou em segurança' }));
      fireEvent.click(screen.getByRole('button', { name: 'Sim, estou em segurança' }));
      expect(await screen.findByTestId('resolve-needs-owner')).toHaveTextContent(
        'Para terminar o alerta, este telemóvel tem de mostrar que é seu: inicie sessão aqui uma vez e confirme de novo.',
      );
      // Beside the refusal, open, its first field focused: nobody is sent to the bottom of the page.
      const here = screen.getByTestId('owner-sign-in-here');
      expect(here).toHaveAttribute('open');
      expect(screen.getByTestId('resolve-needs-owner').nextElementSibling).toBe(here);
      await waitFor(() => expect(document.activeElement).toBe(here.querySelector('input[name="username"]')));
      expect(screen.queryByTestId('resolved')).toBeNull();
      // Still there to confirm again once signed in.
      expect(screen.getByRole('button', { name: 'Sim, estou em segurança' })).toBeEnabled();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('opened from the daily reminder on a phone not signed in: its button opens the sign-in, and once signed in "Estou bem hoje" shows, focused', async () => {
    const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';
    const answer = (body: unknown) => Promise.resolve(Response.json(body));
    vi.stubGlobal('fetch', (url: string) => {
      if (url === '/api/users/auth/login/') return answer({ access: 'a' });
      if (url === '/api/users/me/device-keys/') return answer({ device_key: KEY });
      if (url === '/api/users/me/') return answer({ username: 'ana' });
      if (url === '/api/emergency/public/tok/daily/') return answer(dailyView());
      return new Promise(() => undefined);
    });
    try {
      render(<EmergencyPage emergency={fakeEmergency({ name: 'ready' }).emergency} onDaily />);
      expect(await screen.findByText('Para fazer o check-in aqui, entre uma vez neste telemóvel.')).toBeInTheDocument();
      fireEvent.click(screen.getByRole('button', { name: 'Entrar neste telemóvel' }));
      const details = screen.getByTestId('owner-sign-in') as HTMLDetailsElement;
      await waitFor(() => expect(document.activeElement).toBe(details.querySelector('input[name="username"]')));
      expect(details.open).toBe(true);
      fireEvent.input(screen.getByLabelText('Nome de utilizador ou e-mail'), { target: { value: 'ana' } });
      fireEvent.input(screen.getByLabelText('Palavra-passe'), { target: { value: 'secret' } });
      fireEvent.submit(screen.getByRole('button', { name: 'Iniciar sessão' }));
      const ok = await screen.findByRole('button', { name: 'Estou bem hoje' });
      await waitFor(() => expect(document.activeElement).toBe(ok));
      expect(screen.queryByText('Para fazer o check-in aqui, entre uma vez neste telemóvel.')).toBeNull();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('builds no SMS to masked numbers: says how to get the whole ones, in pt and en, and shows the text to copy', () => {
    const masked = {
      contacts: [
        { id: 'c1', name: 'Rui', phone_number: '•••••••678' },
        { id: 'c2', name: 'Eva', phone_number: '•••••••890' },
      ],
      numbers_masked: true,
      messages: { real: '', test: '' },
    };
    const first = render(<EmergencyPage emergency={fakeEmergency({ name: 'cancelled' }, masked).emergency} />);
    expect(screen.queryByRole('link', { name: 'Enviar do meu telemóvel (SMS)' })).toBeNull();
    expect(document.querySelector('a[href^="sms:"]')).toBeNull();
    expect(screen.getByTestId('sms-fallback-masked')).toHaveTextContent(
      'Para enviar o alerta do seu telemóvel por SMS, este telemóvel precisa dos números completos dos contactos: inicie sessão uma vez em «É o seu telemóvel?», no fim da página. Até lá, pode copiar a mensagem:',
    );
    expect(screen.getByTestId('sms-fallback-masked')).toHaveTextContent('EMERGÊNCIA: Ana precisa de ajuda agora.');
    // The names still show.
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Rui', 'Eva']);
    first.unmount();

    render(<EmergencyPage emergency={fakeEmergency({ name: 'cancelled' }, { ...masked, language: 'en' }).emergency} />);
    expect(document.querySelector('a[href^="sms:"]')).toBeNull();
    expect(screen.getByTestId('sms-fallback-masked')).toHaveTextContent(
      'To send the alert from your phone by SMS, this phone needs your contacts’ full numbers: sign in once under “Is this your phone?” at the bottom of the page. Until then you can copy the message:',
    );
  });
});

describe('emergency page: the most urgent first, and only what applies', () => {
  beforeAll(() => loadLater());
  const follows = (first: Element, second: Element) =>
    Boolean(first.compareDocumentPosition(second) & Node.DOCUMENT_POSITION_FOLLOWING);

  it('once sent, shows the deliveries and who is on the way before the check-in', () => {
    vi.stubGlobal('fetch', () => new Promise(() => undefined));
    try {
      const sent = sentAlert({}, [{ contact_name: 'Rui', status: 'delivered' }]);
      render(<EmergencyPage emergency={fakeEmergency(sent).emergency} />);
      const delivery = screen.getByText('entregue');
      const responders = screen.getByRole('heading', { name: 'Quem vem a caminho' });
      const checkin = screen.getByRole('heading', { name: 'Check-in' });
      expect(follows(delivery, responders)).toBe(true);
      expect(follows(responders, checkin)).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  /** The page in `phase` with the GPS given up (no geolocation here) and the worker unable to start. */
  function renderRefused(phase: 'invalid' | 'inactive', language: 'pt' | 'en') {
    vi.stubGlobal('fetch', () => new Promise(() => undefined));
    offline.unavailable = true;
    const { emergency } = fakeEmergency({ name: phase }, { language });
    emergency.geo.start();
    return render(<EmergencyPage emergency={emergency} />);
  }
  afterEach(() => {
    offline.unavailable = false;
    vi.unstubAllGlobals();
  });

  it('on a link that does not work says only that, and where the new one is, in pt and en', () => {
    const first = renderRefused('invalid', 'pt');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Esta ligação de emergência não é válida (foi renovada ou não existe): nenhum alerta pode ser enviado por ela. Entre no Alerta e guarde a nova ligação «Emergência real», em Configurar.',
    );
    // Nothing about an alert that goes (without location, or once online), nor its contacts.
    expect(screen.queryByTestId('location')).toBeNull();
    expect(document.body).not.toHaveTextContent(/sem ela|alerta sai/);
    expect(screen.queryByRole('heading', { name: 'Contactos' })).toBeNull();
    expect(screen.queryAllByRole('listitem')).toEqual([]);
    first.unmount();

    renderRefused('invalid', 'en');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'This emergency link is not valid (it was renewed or does not exist): no alert can be sent with it. Log in to Alerta and save the new “Real Emergency” link from Setup.',
    );
    expect(screen.queryByTestId('location')).toBeNull();
    expect(document.body).not.toHaveTextContent(/without it|alert still goes/);
  });

  it('on a lapsed plan says so, how to renew it and to tell the contacts by SMS meanwhile, in pt and en', () => {
    const first = renderRefused('inactive', 'pt');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'A subscrição deste alerta não está ativa: o Alerta não pode enviar o alerta. Renove-a em Preços, com a sessão iniciada no Alerta. Até lá, avise os seus contactos do seu telemóvel (SMS).',
    );
    expect(screen.queryByTestId('location')).toBeNull();
    expect(document.body).not.toHaveTextContent(/sem ela|alerta sai/);
    // The phone's own SMS is what is left.
    expect(screen.getByRole('link', { name: 'Enviar do meu telemóvel (SMS)' })).toBeInTheDocument();
    first.unmount();

    renderRefused('inactive', 'en');
    expect(screen.getByRole('alert')).toHaveTextContent(
      "This alert's subscription is not active: Alerta cannot send the alert. Renew it under Pricing, logged in to Alerta. Until then, tell your contacts from your phone (SMS).",
    );
    expect(screen.queryByTestId('location')).toBeNull();
    expect(document.body).not.toHaveTextContent(/without it|alert still goes/);
    expect(screen.getByRole('link', { name: 'Send from my phone (SMS)' })).toBeInTheDocument();
  });
});

afterEach(() => {
  resetAskedToSignIn();
  forgetDeviceKey();
});
