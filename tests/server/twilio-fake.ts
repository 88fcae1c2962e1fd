import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';

export const SID = 'AC00000000000000000000000000000001';
export const AUTH_TOKEN = 'twilio-auth-token-for-tests';
export const APP_URL = 'http://alerta.test';
export const INVALID_NUMBER = '+15005550001';
/** A number that replied STOP to the sender: Twilio refuses messages to it with error 21610. */
export const UNSUBSCRIBED_NUMBER = '+15005550002';

export interface FakeRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  form: Record<string, string>;
}

/** A message the fake accepted, as Twilio keeps it. */
export interface FakeMessage {
  sid: string;
  to: string;
  from: string | null;
  messagingServiceSid: string | null;
  body: string;
  /** When it was accepted (and, here, sent): epoch ms of the fake's clock. */
  sentAt: number;
  /** The status callback it was sent with (ours carries the delivery id as `d`). */
  statusCallback: string | null;
}

/** A call the fake accepted, as Twilio keeps it. */
export interface FakeCall {
  sid: string;
  to: string;
  from: string | null;
  /** `ringing` once dialled; `queued` while it waits in Twilio's queue (no start time yet). */
  status: 'queued' | 'ringing';
  /** When it was accepted: epoch ms of the fake's clock. */
  createdAt: number;
  /** When it started ringing out: the accepted time, or null while queued. */
  startedAt: number | null;
}

export interface FakeTwilio {
  server: Server;
  url: string;
  requests: FakeRequest[];
  /** Every message it accepted, oldest first. */
  messages: FakeMessage[];
  /** Every call it accepted, oldest first. */
  calls: FakeCall[];
  /** The most requests it held unanswered at once. */
  maxInFlight(): number;
  /**
   * From now on each message is accepted as it arrives but its answer is held until the
   * returned `release` is called (a Twilio slower than the caller's patience).
   */
  holdAnswers(): () => void;
  /** The next `count` messages are lost before Twilio takes them: nothing accepted, answered 503. */
  loseMessages(count: number): void;
  /** The next `count` lists of messages fail with a 500. */
  failLists(count: number): void;
  /** The next `count` calls are refused before Twilio takes them: nothing accepted, answered 500. */
  failCalls(count: number): void;
  /** The next `count` calls are accepted, then the connection is cut before the answer (a lost answer). */
  cutCallAnswers(count: number): void;
  /** From now on accepted calls wait in Twilio's queue (`queued`, no start time) instead of ringing out at once. */
  queueCalls(queued: boolean): void;
}

const MESSAGES = `/2010-04-01/Accounts/${SID}/Messages.json`;
const CALLS = `/2010-04-01/Accounts/${SID}/Calls.json`;

interface Answer {
  status: number;
  body: unknown;
  /** A message's answer, which `holdAnswers` may hold. */
  holdable?: boolean;
  /** The connection is cut instead of answering. */
  cut?: boolean;
}

const rfc2822 = (ms: number) => new Date(ms).toUTCString().replace('GMT', '+0000');

/** A message as Twilio's API shows it. */
const shown = (m: FakeMessage) => ({
  sid: m.sid,
  account_sid: SID,
  to: m.to,
  from: m.from,
  messaging_service_sid: m.messagingServiceSid,
  body: m.body,
  status: 'queued',
  direction: 'outbound-api',
  num_segments: '1',
  date_created: rfc2822(m.sentAt),
  date_updated: rfc2822(m.sentAt),
  date_sent: rfc2822(m.sentAt),
  uri: `/2010-04-01/Accounts/${SID}/Messages/${m.sid}.json`,
});

/** A call as Twilio's API shows it. */
const shownCall = (c: FakeCall) => ({
  sid: c.sid,
  account_sid: SID,
  to: c.to,
  from: c.from,
  status: c.status,
  direction: 'outbound-api',
  date_created: rfc2822(c.createdAt),
  date_updated: rfc2822(c.createdAt),
  start_time: c.startedAt === null ? null : rfc2822(c.startedAt),
  uri: `/2010-04-01/Accounts/${SID}/Calls/${c.sid}.json`,
});

/** Whether `at` is within a list's `<name>>` (on or after) and `<name><` (on or before) bounds. */
const within = (query: URLSearchParams, name: string, at: number | null) => {
  const after = query.get(`${name}>`);
  const before = query.get(`${name}<`);
  if (after === null && before === null) return true;
  return at !== null && (after === null || at >= Date.parse(after)) && (before === null || at <= Date.parse(before));
};

/**
 * One page of a Twilio list of `rows` (already filtered, oldest first): newest first, PageSize
 * (50 unless told) at Page, with the next page's URI while more are left, as the SDK follows them.
 */
function listPage(key: 'messages' | 'calls', path: string, rows: unknown[], query: URLSearchParams): Answer {
  const matching = [...rows].reverse();
  const size = Number(query.get('PageSize') ?? 50);
  const page = Number(query.get('Page') ?? 0);
  const uriOf = (n: number) => {
    const params = new URLSearchParams(query);
    params.set('PageSize', String(size));
    params.set('Page', String(n));
    return `${path}?${params}`;
  };
  const start = page * size;
  const shownRows = matching.slice(start, start + size);
  return {
    status: 200,
    body: {
      [key]: shownRows,
      page,
      page_size: size,
      start,
      end: start + Math.max(shownRows.length - 1, 0),
      uri: uriOf(page),
      first_page_uri: uriOf(0),
      previous_page_uri: page > 0 ? uriOf(page - 1) : null,
      next_page_uri: start + size < matching.length ? uriOf(page + 1) : null,
    },
  };
}

/** Twilio's list of messages: filtered by To, From and DateSent (`DateSent>` on or after, `DateSent<` on or before). */
const messagesPage = (messages: FakeMessage[], query: URLSearchParams) =>
  listPage(
    'messages',
    MESSAGES,
    messages
      .filter(
        (m) =>
          (!query.has('To') || m.to === query.get('To')) &&
          (!query.has('From') || m.from === query.get('From')) &&
          within(query, 'DateSent', m.sentAt),
      )
      .map(shown),
    query,
  );

/** Twilio's list of calls: filtered by To, From, Status and StartTime (a queued call has none, so a StartTime bound leaves it out). */
const callsPage = (calls: FakeCall[], query: URLSearchParams) =>
  listPage(
    'calls',
    CALLS,
    calls
      .filter(
        (c) =>
          (!query.has('To') || c.to === query.get('To')) &&
          (!query.has('From') || c.from === query.get('From')) &&
          (!query.has('Status') || c.status === query.get('Status')) &&
          within(query, 'StartTime', c.startedAt),
      )
      .map(shownCall),
    query,
  );

/**
 * A local stand-in for Twilio's Messages and Calls APIs (create and list), on loopback, answering
 * as Twilio does, each request handled `delayMs` after it arrived (none by default); messages are
 * dated by `now` (the wall clock by default).
 */
export async function fakeTwilio(options: { delayMs?: number; now?: () => number } = {}): Promise<FakeTwilio> {
  const now = options.now ?? Date.now;
  const requests: FakeRequest[] = [];
  const messages: FakeMessage[] = [];
  const calls: FakeCall[] = [];
  let next = 0;
  let failingCalls = 0;
  let cutCalls = 0;
  let callsQueued = false;
  let inFlight = 0;
  let most = 0;
  let held: (() => void)[] | null = null;
  let lost = 0;
  let failingLists = 0;

  function handle(method: string, url: string, form: Record<string, string>): Answer {
    const [path = '', search = ''] = url.split('?');
    if (method === 'POST' && path === CALLS) {
      if (failingCalls > 0) {
        failingCalls -= 1;
        return { status: 500, body: { code: 20500, message: 'Internal Server Error', status: 500 } };
      }
      if (form.To === INVALID_NUMBER) {
        const message = `The 'To' number ${form.To} is not a valid phone number.`;
        return { status: 400, body: { code: 21211, message, status: 400 } };
      }
      next += 1;
      const at = now();
      const call: FakeCall = {
        sid: `CA${String(next).padStart(32, '0')}`,
        to: form.To ?? '',
        from: form.From ?? null,
        status: callsQueued ? 'queued' : 'ringing',
        createdAt: at,
        startedAt: callsQueued ? null : at,
      };
      calls.push(call);
      if (cutCalls > 0) {
        cutCalls -= 1;
        return { status: 0, body: null, cut: true };
      }
      return { status: 201, body: { sid: call.sid, account_sid: SID, to: form.To, from: form.From, status: 'queued' } };
    }
    if (method === 'GET' && path === CALLS) return callsPage(calls, new URLSearchParams(search));
    if (method === 'GET' && path === MESSAGES) {
      if (failingLists > 0) {
        failingLists -= 1;
        return { status: 500, body: { code: 20500, message: 'Internal Server Error', status: 500 } };
      }
      return messagesPage(messages, new URLSearchParams(search));
    }
    if (method !== 'POST' || path !== MESSAGES) {
      return { status: 404, body: { code: 20404, message: 'The requested resource was not found', status: 404 } };
    }
    if (lost > 0) {
      lost -= 1;
      return { status: 503, body: { code: 20503, message: 'Service unavailable', status: 503 }, holdable: true };
    }
    if (form.To === INVALID_NUMBER) {
      const message = `The 'To' number ${form.To} is not a valid phone number.`;
      return { status: 400, body: { code: 21211, message, status: 400 } };
    }
    if (form.To === UNSUBSCRIBED_NUMBER) {
      return { status: 400, body: { code: 21610, message: 'Attempt to send to unsubscribed recipient', status: 400 } };
    }
    next += 1;
    const accepted: FakeMessage = {
      sid: `SM${String(next).padStart(32, '0')}`,
      to: form.To ?? '',
      from: form.From ?? null,
      messagingServiceSid: form.MessagingServiceSid ?? null,
      body: form.Body ?? '',
      sentAt: now(),
      statusCallback: form.StatusCallback ?? null,
    };
    messages.push(accepted);
    return { status: 201, body: shown(accepted), holdable: true };
  }

  const server = createServer((req, res) => {
    let raw = '';
    inFlight += 1;
    most = Math.max(most, inFlight);
    res.once('finish', () => {
      inFlight -= 1;
    });
    req.on('data', (chunk) => {
      raw += chunk;
    });
    const answer = () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      const method = req.method ?? 'GET';
      requests.push({ method, path: req.url ?? '', authorization: req.headers.authorization, form });
      const { status, body, holdable, cut } = handle(method, req.url ?? '', form);
      if (cut) {
        req.socket.destroy();
        return;
      }
      const send = () => {
        res.statusCode = status;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(body));
      };
      if (holdable && held) held.push(send);
      else send();
    };
    req.on('end', () => (options.delayMs ? setTimeout(answer, options.delayMs) : answer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    requests,
    messages,
    calls,
    maxInFlight: () => most,
    holdAnswers() {
      const answers: (() => void)[] = [];
      held = answers;
      return () => {
        if (held === answers) held = null;
        for (const send of answers.splice(0)) send();
      };
    },
    loseMessages(count) {
      lost = count;
    },
    failLists(count) {
      failingLists = count;
    },
    failCalls(count) {
      failingCalls = count;
    },
    cutCallAnswers(count) {
      cutCalls = count;
    },
    queueCalls(queued) {
      callsQueued = queued;
    },
  };
}

/** The SDK's own HTTP client (with its options: `timeout`), sending to the fake instead of api.twilio.com. */
export class LoopbackClient extends twilio.RequestClient {
  constructor(
    private readonly base: string,
    options?: RequestClient.RequestClientOptions,
  ) {
    super(options);
  }
  override request<T>(opts: RequestClient.RequestOptions<T>) {
    return super.request<T>({ ...opts, uri: opts.uri.replace(/^https:\/\/api\.twilio\.com/, this.base) });
  }
}

/** A request a silent Twilio received: which API, and to which number. */
export interface HeardRequest {
  api: 'Messages' | 'Calls' | 'other';
  to: string | null;
}

/**
 * A Twilio that takes every connection and request and never answers, as a provider hung
 * behind its load balancer: whatever is sent to it never reaches the fake Twilio. `heard` lists
 * what it received (one request per connection: an unanswered one is never followed by another).
 */
export async function silentTwilio(): Promise<{ url: string; heard(): HeardRequest[]; close(): Promise<void> }> {
  const received = new Map<Socket, string>();
  const server = createTcpServer((socket) => {
    received.set(socket, '');
    socket.on('data', (chunk) => received.set(socket, (received.get(socket) ?? '') + chunk.toString('latin1')));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    heard: () =>
      [...received.values()]
        .filter((raw) => raw.includes('\r\n\r\n'))
        .map((raw) => {
          const api = /^\w+ \S+\/(Messages|Calls)\.json/.exec(raw)?.[1] as 'Messages' | 'Calls' | undefined;
          const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
          return { api: api ?? 'other', to: new URLSearchParams(body).get('To') };
        }),
    async close() {
      for (const socket of received.keys()) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
