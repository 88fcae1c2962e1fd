import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';

export const SID = 'AC00000000000000000000000000000001';
export const AUTH_TOKEN = 'twilio-auth-token-for-tests';
export const APP_URL = 'http://alerta.test';
export const INVALID_NUMBER = '+15005550001';

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
}

export interface FakeTwilio {
  server: Server;
  url: string;
  requests: FakeRequest[];
  /** Every message it accepted, oldest first. */
  messages: FakeMessage[];
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
}

const MESSAGES = `/2010-04-01/Accounts/${SID}/Messages.json`;
const CALLS = `/2010-04-01/Accounts/${SID}/Calls.json`;

interface Answer {
  status: number;
  body: unknown;
  /** A message's answer, which `holdAnswers` may hold. */
  holdable?: boolean;
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

/**
 * Twilio's list of messages: filtered by To, From and DateSent (`DateSent>` on or after,
 * `DateSent<` on or before), newest first, one page of PageSize (50 unless told) at Page,
 * with the next page's URI while more are left, as the SDK follows them.
 */
function listPage(messages: FakeMessage[], query: URLSearchParams): Answer {
  const after = query.get('DateSent>');
  const before = query.get('DateSent<');
  const matching = messages
    .filter(
      (m) =>
        (!query.has('To') || m.to === query.get('To')) &&
        (!query.has('From') || m.from === query.get('From')) &&
        (after === null || m.sentAt >= Date.parse(after)) &&
        (before === null || m.sentAt <= Date.parse(before)),
    )
    .reverse();
  const size = Number(query.get('PageSize') ?? 50);
  const page = Number(query.get('Page') ?? 0);
  const uriOf = (n: number) => {
    const params = new URLSearchParams(query);
    params.set('PageSize', String(size));
    params.set('Page', String(n));
    return `${MESSAGES}?${params}`;
  };
  const start = page * size;
  const rows = matching.slice(start, start + size);
  return {
    status: 200,
    body: {
      messages: rows.map(shown),
      page,
      page_size: size,
      start,
      end: start + Math.max(rows.length - 1, 0),
      uri: uriOf(page),
      first_page_uri: uriOf(0),
      previous_page_uri: page > 0 ? uriOf(page - 1) : null,
      next_page_uri: start + size < matching.length ? uriOf(page + 1) : null,
    },
  };
}

/**
 * A local stand-in for Twilio's Messages (create and list) and Calls APIs, on loopback, answering
 * as Twilio does, each request handled `delayMs` after it arrived (none by default); messages are
 * dated by `now` (the wall clock by default).
 */
export async function fakeTwilio(options: { delayMs?: number; now?: () => number } = {}): Promise<FakeTwilio> {
  const now = options.now ?? Date.now;
  const requests: FakeRequest[] = [];
  const messages: FakeMessage[] = [];
  let next = 0;
  let inFlight = 0;
  let most = 0;
  let held: (() => void)[] | null = null;
  let lost = 0;
  let failingLists = 0;

  function handle(method: string, url: string, form: Record<string, string>): Answer {
    const [path = '', search = ''] = url.split('?');
    if (method === 'POST' && path === CALLS) {
      next += 1;
      const sid = `CA${String(next).padStart(32, '0')}`;
      return { status: 201, body: { sid, account_sid: SID, to: form.To, from: form.From, status: 'queued' } };
    }
    if (method === 'GET' && path === MESSAGES) {
      if (failingLists > 0) {
        failingLists -= 1;
        return { status: 500, body: { code: 20500, message: 'Internal Server Error', status: 500 } };
      }
      return listPage(messages, new URLSearchParams(search));
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
    next += 1;
    const accepted: FakeMessage = {
      sid: `SM${String(next).padStart(32, '0')}`,
      to: form.To ?? '',
      from: form.From ?? null,
      messagingServiceSid: form.MessagingServiceSid ?? null,
      body: form.Body ?? '',
      sentAt: now(),
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
      const { status, body, holdable } = handle(method, req.url ?? '', form);
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
