import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY, COUNTRY_SEARCH_DEBOUNCE_MS, DELETE_ACCOUNT_REDIRECT_MS } from '../../../common/constants';
import type { Contact } from '../../../src/api/types';
import i18n from '../../../src/i18n';
import { fakeApi, fakeTimeouts, pathNow, renderApp, settle, setupAppTests, signIn, user } from './helpers';

setupAppTests();

const PREMIUM = {
  has_premium: true,
  plan: 'premium' as const,
  contact_limit: 10,
  token: 'tok123',
  alert_countdown_seconds: 5,
};
const ANA: Contact = {
  id: 'c1',
  name: 'Ana',
  phone_number: '+351912345678',
  relationship: 'Irmã',
  alerted: true,
  state: 'invited',
  // Invited over a week ago: the invitation may be asked for again.
  invite_again_at: '2026-01-01T00:00:00.000Z',
};

/** Opens /setup logged in with the given profile and contacts; the fake API keeps contacts in memory. */
async function openSetup(
  fields: Partial<typeof PREMIUM> | Record<string, unknown> = PREMIUM,
  contacts: Contact[] = [ANA],
) {
  signIn();
  const stored = [...contacts];
  let me = user(fields);
  const fake = fakeApi({
    'GET /api/users/me/': () => ({ body: me }),
    'PATCH /api/users/me/': (_request, body) => {
      me = { ...me, ...(body as object), profile: { ...me.profile, ...(body as object) } };
      return { body: me };
    },
    'POST /api/users/token/rotate/': () => {
      me = { ...me, token: 'tok999', profile: { ...me.profile, token: 'tok999' } };
      return { body: { token: 'tok999' } };
    },
    'GET /api/emergency/contacts/': () => ({ body: stored }),
    'GET /api/users/me/devices/': { body: [] },
    'POST /api/emergency/contacts/': (_request, body) => {
      const created = { id: `c${stored.length + 1}`, ...(body as object) } as Contact;
      stored.push(created);
      return { status: 201, body: created };
    },
  });
  renderApp('/setup');
  await screen.findByRole('heading', { name: 'Configurar contactos' });
  await settle();
  return fake;
}

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('Setup', () => {
  it('asks to log in when logged out', async () => {
    renderApp('/setup');
    expect(
      await screen.findByText('Entre na sua conta para gerir os seus contactos de emergência.'),
    ).toBeInTheDocument();
  });

  it('shows the six-step guide open by default, and it collapses', async () => {
    await openSetup();
    const guide = screen.getByText('Como começar (6 passos)').closest('details')!;
    expect(guide).toHaveAttribute('open');
    expect(within(guide).getAllByRole('listitem')).toHaveLength(6);
    fireEvent.click(screen.getByText('Como começar (6 passos)'));
    expect(guide).not.toHaveAttribute('open');
  });

  it('the guide says the test page sends a marked test SMS to a chosen contact, in both languages', async () => {
    await openSetup();
    expect(
      screen.getByText(
        'Carregue em “Emergência de teste” e confirme que tudo está pronto. Aí pode escolher um contacto para receber um SMS de teste, marcado TESTE (no máximo 5 por hora).',
      ),
    ).toBeInTheDocument();
    await act(() => i18n.changeLanguage('en'));
    expect(
      screen.getByText(
        'Press “Test Emergency” and check that everything is ready. There you can choose one contact to receive a test SMS, marked TEST (at most 5 an hour).',
      ),
    ).toBeInTheDocument();
  });

  it('lists the contacts and removes one after a successful delete', async () => {
    const fake = await openSetup();
    expect(screen.getByText('+351912345678')).toBeInTheDocument();
    expect(screen.getByText('1 de 10 contactos')).toBeInTheDocument();
    fake.fetch.mockImplementationOnce(async () => new Response(null, { status: 204 }));
    fireEvent.click(screen.getByRole('button', { name: 'Remover Ana' }));
    expect(await screen.findByText('Ainda não tem contactos.')).toBeInTheDocument();
  });

  it('keeps a contact whose delete failed, and says so in a toast, in both languages', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    await openSetup();
    fireEvent.click(screen.getByRole('button', { name: 'Remover Ana' }));
    expect(await screen.findByText('Não foi possível remover o contacto.')).toBeInTheDocument();
    expect(screen.getByText('+351912345678')).toBeInTheDocument();
    expect(error).toHaveBeenCalled();
    await act(() => i18n.changeLanguage('en'));
    fireEvent.click(screen.getByRole('button', { name: 'Remove Ana' }));
    expect(await screen.findAllByText('Failed to delete the contact.')).not.toHaveLength(0);
    expect(screen.getByText('+351912345678')).toBeInTheDocument();
  });

  it('names the plan in its language when the contact limit is reached', async () => {
    const fake = await openSetup();
    await act(() => i18n.changeLanguage('en'));
    fake.fetch.mockImplementationOnce(async () =>
      Response.json(
        { detail: 'CONTACT_LIMIT_REACHED:10:premium', code: 'contact_limit_reached', max: 10, plan: 'premium' },
        { status: 400 },
      ),
    );
    type('Name', 'João');
    fireEvent.change(screen.getByLabelText('Phone'), { target: { value: '913000111' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add contact' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'You have reached the limit of 10 contacts of your plan (Premium).',
    );
  });

  it('after a downgrade: the contacts beyond the limit are marked, kept, and one can be chosen to be alerted', async () => {
    const five: Contact[] = ['Ana', 'Rui', 'Eva', 'Luís', 'Inês'].map((name, i) => ({
      id: `c${i + 1}`,
      name,
      phone_number: `+35191200000${i + 1}`,
      relationship: '',
      alerted: i < 3,
      state: 'invited' as const,
      invite_again_at: null,
    }));
    const fake = await openSetup({ ...PREMIUM, plan: 'basic', contact_limit: 3 }, five);
    expect(screen.queryByText('5 de 3 contactos')).toBeNull();
    expect(
      screen.getByText(
        'O plano Básico alerta 3 contactos: os primeiros da lista. Os outros 2 ficam guardados, mas não são alertados.',
      ),
    ).toBeInTheDocument();
    expect(screen.getAllByText('Não alertado neste plano')).toHaveLength(2);
    expect(screen.getAllByRole('button', { name: /^Remover/ })).toHaveLength(5);
    const reordered = [five[4]!, five[0]!, five[1]!, five[2]!, five[3]!].map((contact, i) => ({
      ...contact,
      alerted: i < 3,
    }));
    const answer = fake.fetch.getMockImplementation()!;
    const chosen: string[] = [];
    fake.fetch.mockImplementation(async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      if (!request.url.endsWith('/alert-first/')) return answer(input, init);
      chosen.push(`${request.method} ${new URL(request.url).pathname}`);
      return new Response(JSON.stringify(reordered), { status: 200 });
    });
    fireEvent.click(screen.getByRole('button', { name: 'Alertar Inês em vez do último alertado' }));
    expect(await screen.findByRole('button', { name: 'Alertar Eva em vez do último alertado' })).toBeInTheDocument();
    expect(chosen).toEqual(['POST /api/emergency/contacts/c5/alert-first/']);
    const names = screen.getAllByRole('listitem').map((item) => item.querySelector('strong')?.textContent);
    expect(names.filter(Boolean)).toEqual(['Inês', 'Ana', 'Rui', 'Eva', 'Luís']);

    await act(() => i18n.changeLanguage('en'));
    expect(
      screen.getByText(
        'The Basic plan alerts 3 contacts: the first ones in the list. The other 2 are kept but not alerted.',
      ),
    ).toBeInTheDocument();
    expect(screen.getAllByText('Not alerted on this plan')).toHaveLength(2);
    expect(screen.getByRole('button', { name: 'Alert Luís instead of the last alerted' })).toBeInTheDocument();
  });

  it('after a failed contacts load says so with a retry, never "no contacts", and the retry loads them, in both languages', async () => {
    signIn();
    let fail = true;
    const { calls } = fakeApi({
      'GET /api/users/me/': { body: user(PREMIUM) },
      'GET /api/emergency/contacts/': () => (fail ? { status: 500, body: {} } : { body: [ANA] }),
      'GET /api/users/me/devices/': { body: [] },
    });
    renderApp('/setup');
    expect(await screen.findByRole('alert')).toHaveTextContent('Não foi possível carregar os contactos.');
    expect(screen.queryByText('Ainda não tem contactos.')).toBeNull();
    expect(screen.queryByText(/de 10 contactos/)).toBeNull();
    expect(screen.getByRole('button', { name: 'Tentar de novo' })).toBeEnabled();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to fetch your contacts.');
    expect(screen.queryByText('You have no contacts yet.')).toBeNull();
    expect(screen.queryByText(/of 10 contacts/)).toBeNull();

    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('+351912345678')).toBeInTheDocument();
    expect(screen.getByText('1 of 10 contacts')).toBeInTheDocument();
    expect(screen.queryByText('Failed to fetch your contacts.')).toBeNull();
    expect(calls.filter((call) => call.path === '/api/emergency/contacts/')).toHaveLength(2);
  });

  it('treats a non-array contacts answer as empty', async () => {
    signIn();
    fakeApi({
      'GET /api/users/me/': { body: user(PREMIUM) },
      'GET /api/emergency/contacts/': { body: { results: [] } },
    });
    renderApp('/setup');
    expect(await screen.findByText('Ainda não tem contactos.')).toBeInTheDocument();
  });

  it('adds a contact in E.164 (default country Portugal), appends it and clears the form', async () => {
    const fake = await openSetup();
    const phone = screen.getByLabelText('Telemóvel');
    expect(phone).toHaveAttribute('placeholder', '1 (702) 123-4567');
    expect(screen.getByLabelText('País')).toHaveValue('PT');
    type('Nome', 'João Silva');
    fireEvent.change(phone, { target: { value: '913 000 111' } });
    type('Relação (opcional)', 'Pai');
    fireEvent.click(screen.getByRole('button', { name: 'Adicionar contacto' }));
    expect(await screen.findByText('+351913000111')).toBeInTheDocument();
    const post = fake.calls.find((call) => call.method === 'POST' && call.path === '/api/emergency/contacts/');
    expect(post?.body).toEqual({ name: 'João Silva', phone_number: '+351913000111', relationship: 'Pai' });
    expect(screen.getByLabelText('Nome')).toHaveValue('');
    expect(screen.getByLabelText('Telemóvel')).toHaveValue('');
  });

  it('checks the form with the shared rules: correct the errors below, short number, duplicate', async () => {
    const fake = await openSetup();
    fireEvent.click(screen.getByRole('button', { name: 'Adicionar contacto' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Corrija os erros abaixo.');
    expect(screen.getByText('Indique o nome.')).toBeInTheDocument();
    expect(screen.getByText('Indique o número de telemóvel.')).toBeInTheDocument();
    type('Nome', 'J');
    fireEvent.change(screen.getByLabelText('Telemóvel'), { target: { value: '9123' } });
    fireEvent.click(screen.getByRole('button', { name: 'Adicionar contacto' }));
    expect(screen.getByText(/O nome deve ter 2 a 50 caracteres/)).toBeInTheDocument();
    expect(screen.getByText('O número deve ter pelo menos 9 algarismos.')).toBeInTheDocument();
    type('Nome', 'Outra Ana');
    fireEvent.change(screen.getByLabelText('Telemóvel'), { target: { value: '912345678' } });
    fireEvent.click(screen.getByRole('button', { name: 'Adicionar contacto' }));
    expect(screen.getByText('Este número já está nos seus contactos.')).toBeInTheDocument();
    expect(fake.calls.some((call) => call.method === 'POST' && call.path === '/api/emergency/contacts/')).toBe(false);
  });

  it('a 7-digit Portuguese number is too short, not badly formatted, in both languages', async () => {
    const fake = await openSetup();
    type('Nome', 'João');
    fireEvent.change(screen.getByLabelText('Telemóvel'), { target: { value: '9123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Adicionar contacto' }));
    expect(screen.getByText('O número deve ter pelo menos 9 algarismos.')).toBeInTheDocument();
    expect(screen.queryByText(/formato internacional/)).toBeNull();
    await act(() => i18n.changeLanguage('en'));
    fireEvent.click(screen.getByRole('button', { name: 'Add contact' }));
    expect(screen.getByText('The number must have at least 9 digits.')).toBeInTheDocument();
    expect(fake.calls.some((call) => call.method === 'POST' && call.path === '/api/emergency/contacts/')).toBe(false);
  });

  it('needs a subscription to add', async () => {
    await openSetup({}, []);
    expect(screen.getByText(/Precisa de uma subscrição ativa/)).toBeInTheDocument();
    type('Nome', 'João');
    fireEvent.change(screen.getByLabelText('Telemóvel'), { target: { value: '913000111' } });
    fireEvent.click(screen.getByRole('button', { name: 'Adicionar contacto' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Precisa de uma subscrição para adicionar contactos.');
    expect(screen.queryByRole('heading', { name: 'Botões de emergência' })).toBeNull();
  });

  it.each([
    [
      400,
      { detail: 'CONTACT_LIMIT_REACHED:3:basic', code: 'contact_limit_reached', max: 3, plan: 'basic' },
      'Atingiu o limite de 3 contactos do seu plano (Básico).',
    ],
    [403, { detail: 'Forbidden', code: 'forbidden' }, 'Tem de ter a sessão iniciada para adicionar contactos.'],
    [201, { ok: true }, 'Não foi possível criar o contacto. Tente novamente.'],
    [
      400,
      {
        phone_number: ['This number is already in your contacts.'],
        code: 'duplicate_phone',
        codes: { phone_number: 'duplicate_phone' },
      },
      'Corrija os erros abaixo.',
    ],
  ])('maps an add answer %i %j', async (status, body, text) => {
    const fake = await openSetup();
    fake.fetch.mockImplementationOnce(async () => Response.json(body, { status }));
    type('Nome', 'João');
    fireEvent.change(screen.getByLabelText('Telemóvel'), { target: { value: '913000111' } });
    fireEvent.click(screen.getByRole('button', { name: 'Adicionar contacto' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
  });

  it('filters countries after a 250 ms pause in the search', async () => {
    await openSetup();
    fakeTimeouts();
    const select = screen.getByLabelText('País') as HTMLSelectElement;
    const before = select.options.length;
    fireEvent.change(screen.getByLabelText('Procurar país'), { target: { value: 'espa' } });
    act(() => vi.advanceTimersByTime(COUNTRY_SEARCH_DEBOUNCE_MS - 1));
    expect(select.options.length).toBe(before);
    act(() => vi.advanceTimersByTime(1));
    const names = [...select.options].map((option) => option.textContent);
    expect(names).toContain('Espanha +34');
    expect(names).toContain('Portugal +351');
    expect(select.options.length).toBeLessThan(5);
  });

  it('shows the Emergency Buttons only with a token and a subscription: links, copy, countdown, rotation', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const fake = await openSetup();
    const origin = window.location.origin;
    expect(screen.getByRole('heading', { name: 'Botões de emergência' })).toBeInTheDocument();
    expect(screen.getByText(`${origin}/test/tok123/`)).toBeInTheDocument();
    expect(screen.getByText(`${origin}/public/tok123/`)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Copiar ligação: Emergência real' }));
    expect(await screen.findByText('Ligação copiada.')).toBeInTheDocument();
    expect(writeText).toHaveBeenCalledWith(`${origin}/public/tok123/`);

    fireEvent.change(screen.getByLabelText('Contagem antes do envio'), { target: { value: '10' } });
    expect(await screen.findByText('Contagem guardada.')).toBeInTheDocument();
    const patch = fake.calls.find((call) => call.method === 'PATCH');
    expect(patch).toMatchObject({ path: '/api/users/me/', body: { alert_countdown_seconds: 10 } });
    expect(screen.getByLabelText('Contagem antes do envio')).toHaveValue('10');

    const escalation = screen.getByLabelText('Se ninguém responder a um alerta real, ligar aos meus contactos após');
    expect(escalation).toHaveValue('300');
    expect(within(escalation).getByRole('option', { name: 'Nunca ligar' })).toBeInTheDocument();
    fireEvent.change(escalation, { target: { value: '0' } });
    expect(await screen.findByText('Guardado: as chamadas seguem este tempo.')).toBeInTheDocument();
    expect(fake.calls.filter((call) => call.method === 'PATCH').at(-1)).toMatchObject({
      body: { escalation_after_seconds: 0 },
    });
    expect(escalation).toHaveValue('0');

    fireEvent.click(screen.getByRole('button', { name: 'Gerar novas ligações' }));
    expect(fake.calls.some((call) => call.path === '/api/users/token/rotate/')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Sim, gerar novas ligações' }));
    expect(await screen.findByText(`${origin}/public/tok999/`)).toBeInTheDocument();
  });

  it('hides the Emergency Buttons without a token', async () => {
    await openSetup({ ...PREMIUM, token: null });
    expect(screen.queryByRole('heading', { name: 'Botões de emergência' })).toBeNull();
  });

  it('deletes the account after confirmation, logs out and goes to /register after 150 ms', async () => {
    const fake = await openSetup();
    fakeTimeouts();
    fireEvent.click(screen.getByRole('button', { name: 'Apagar a minha conta' }));
    expect(fake.calls.some((call) => call.method === 'DELETE')).toBe(false);
    fake.fetch.mockImplementationOnce(async () => new Response(null, { status: 204 }));
    fireEvent.click(screen.getByRole('button', { name: 'Sim, apagar a conta' }));
    await settle();
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
    act(() => vi.advanceTimersByTime(DELETE_ACCOUNT_REDIRECT_MS - 1));
    expect(pathNow()).toBe('/setup');
    act(() => vi.advanceTimersByTime(1));
    expect(pathNow()).toBe('/register');
  });

  it.each([
    [
      'pt',
      'Apagar a minha conta',
      'Sim, apagar a conta',
      /Não pode ser desfeito\. Continuar\?$/,
      'A sua conta foi apagada.',
    ],
    [
      'en',
      'Delete my account',
      'Yes, delete my account',
      /It cannot be undone\. Continue\?$/,
      'Your account has been deleted.',
    ],
  ])(
    'deleting the account in %s: a question first, focused, then the word that it is gone',
    async (language, ask, yes, question, deleted) => {
      const fake = await openSetup();
      await act(() => i18n.changeLanguage(language));
      fireEvent.click(screen.getByRole('button', { name: ask }));
      const group = screen.getByRole('group', { name: question });
      expect(group).toHaveFocus();
      expect(fake.calls.some((call) => call.method === 'DELETE')).toBe(false);
      fake.fetch.mockImplementationOnce(async () => new Response(null, { status: 204 }));
      fireEvent.click(within(group).getByRole('button', { name: yes }));
      expect(await screen.findByText(deleted)).toBeInTheDocument();
      // Still said once the page has moved to /register.
      await vi.waitFor(() => expect(pathNow()).toBe('/register'));
      expect(screen.getByText(deleted)).toBeInTheDocument();
    },
  );

  it('says when the account could not be deleted', async () => {
    const fake = await openSetup();
    fireEvent.click(screen.getByRole('button', { name: 'Apagar a minha conta' }));
    fake.fetch.mockImplementationOnce(async () => new Response('{}', { status: 500 }));
    fireEvent.click(screen.getByRole('button', { name: 'Sim, apagar a conta' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Não foi possível apagar a conta. Tente novamente.');
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBe('access-1');
  });

  it('says so when the portal answer has no url, in both languages, and the browser stays', async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign, origin: window.location.origin });
    const fake = await openSetup();
    fake.fetch.mockImplementationOnce(async () => new Response(JSON.stringify({})));
    fireEvent.click(screen.getByRole('button', { name: 'Gerir subscrição' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Não foi possível abrir a gestão da subscrição.');
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('alert')).toHaveTextContent('Could not open subscription management.');
    expect(screen.getByRole('button', { name: 'Manage subscription' })).toBeEnabled();
    expect(assign).not.toHaveBeenCalled();
  });

  it('opens the subscription portal', async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign, origin: window.location.origin });
    const fake = await openSetup();
    fake.fetch.mockImplementationOnce(async () => new Response(JSON.stringify({ url: '/dev/portal/x' })));
    fireEvent.click(screen.getByRole('button', { name: 'Gerir subscrição' }));
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('/dev/portal/x'));
  });

  it('shows each contact invited, confirmed or opted out (ask them to reply START), in both languages', async () => {
    const contacts: Contact[] = [
      { ...ANA, state: 'invited' },
      { ...ANA, id: 'c2', name: 'Rui', phone_number: '+351912345679', state: 'confirmed' },
      { ...ANA, id: 'c3', name: 'Eva', phone_number: '+351912345670', state: 'opted_out' },
    ];
    await openSetup(PREMIUM, contacts);
    expect(screen.getByText('Convidado por SMS')).toBeInTheDocument();
    expect(screen.getByText('Confirmou')).toBeInTheDocument();
    expect(screen.getByText('Não recebe SMS')).toBeInTheDocument();
    expect(screen.getByText(/peça-lhe para responder START/)).toBeInTheDocument();
    // Only a contact not yet confirmed nor opted out can be invited again.
    expect(screen.getByRole('button', { name: 'Enviar de novo o convite por SMS a Ana' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /convite por SMS a (Rui|Eva)/ })).toBeNull();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText('Invited by SMS')).toBeInTheDocument();
    expect(screen.getByText('Confirmed')).toBeInTheDocument();
    expect(screen.getByText(/ask them to reply START/)).toBeInTheDocument();
  });

  it('offers the invitation again only once it would go, and says from which date until then, in both languages', async () => {
    const week = new Date(Date.now() + 7 * 86_400_000);
    const fake = await openSetup(PREMIUM, [{ ...ANA, state: 'added', invite_again_at: null }]);
    expect(screen.getByText('Sem convite')).toBeInTheDocument();
    fake.fetch.mockImplementationOnce(async () =>
      Response.json({ ...ANA, state: 'invited', invite_again_at: week.toISOString() }),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Enviar de novo o convite por SMS a Ana' }));
    expect(await screen.findByText('Convidado por SMS')).toBeInTheDocument();
    expect(screen.getByText('Convite enviado por SMS.')).toBeInTheDocument();
    // Right after the invitation: no button that would be refused, but the date it comes back.
    expect(screen.queryByRole('button', { name: 'Enviar de novo o convite por SMS a Ana' })).toBeNull();
    const pt = new Intl.DateTimeFormat('pt-PT', { day: '2-digit', month: '2-digit', year: 'numeric' }).format(week);
    expect(screen.getByText(`Pode enviar de novo o convite a partir de ${pt}.`)).toBeInTheDocument();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText(/^You can send the invitation again from \d\d\/\d\d\/\d{4}\.$/)).toBeInTheDocument();
    await act(() => i18n.changeLanguage('pt'));
  });

  it('invites a contact again, and says why not when it went less than a week ago', async () => {
    const fake = await openSetup(PREMIUM, [{ ...ANA, state: 'added', invite_again_at: null }]);
    expect(screen.getByText('Sem convite')).toBeInTheDocument();
    fake.fetch.mockImplementationOnce(async () => Response.json({ ...ANA, state: 'invited' }));
    fireEvent.click(screen.getByRole('button', { name: 'Enviar de novo o convite por SMS a Ana' }));
    expect(await screen.findByText('Convidado por SMS')).toBeInTheDocument();
    expect(screen.getByText('Convite enviado por SMS.')).toBeInTheDocument();
    fake.fetch.mockImplementationOnce(async () =>
      Response.json(
        { detail: 'An invitation went to this contact less than a week ago.', code: 'invitation_too_soon' },
        { status: 429 },
      ),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Enviar de novo o convite por SMS a Ana' }));
    expect(
      await screen.findByText('Já foi enviado um convite a este contacto há menos de uma semana.'),
    ).toBeInTheDocument();
  });
});
