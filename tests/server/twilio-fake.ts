import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';

export const SID = 'AC00000000000000000000000000000001';
export const AUTH_TOKEN = 'twilio-auth-token-for-tests';
export const APP_URL = 'http://alerta.test';
export const INVALID_NUMBER = '+15005550001';

export interface FakeRequest {
  path: string;
  authorization: string | undefined;
  form: Record<string, string>;
}

export interface FakeTwilio {
  server: Server;
  url: string;
  requests: FakeRequest[];
  /** The most requests it held unanswered at once. */
  maxInFlight(): number;
}

/**
 * A local stand-in for Twilio's Messages and Calls APIs, on loopback, answering as Twilio does,
 * each answer `delayMs` after the request arrived (none by default).
 */
export async function fakeTwilio(options: { delayMs?: number } = {}): Promise<FakeTwilio> {
  const requests: FakeRequest[] = [];
  let next = 0;
  let inFlight = 0;
  let most = 0;
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
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization, form });
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === `/2010-04-01/Accounts/${SID}/Calls.json`) {
        next += 1;
        res.statusCode = 201;
        return res.end(
          JSON.stringify({
            sid: `CA${String(next).padStart(32, '0')}`,
            account_sid: SID,
            to: form.To,
            from: form.From,
            status: 'queued',
          }),
        );
      }
      if (req.method !== 'POST' || req.url !== `/2010-04-01/Accounts/${SID}/Messages.json`) {
        res.statusCode = 404;
        return res.end(JSON.stringify({ code: 20404, message: 'The requested resource was not found', status: 404 }));
      }
      if (form.To === INVALID_NUMBER) {
        res.statusCode = 400;
        return res.end(
          JSON.stringify({
            code: 21211,
            message: `The 'To' number ${form.To} is not a valid phone number.`,
            status: 400,
          }),
        );
      }
      next += 1;
      res.statusCode = 201;
      res.end(
        JSON.stringify({
          sid: `SM${String(next).padStart(32, '0')}`,
          account_sid: SID,
          to: form.To,
          from: form.From ?? null,
          messaging_service_sid: form.MessagingServiceSid ?? null,
          body: form.Body,
          status: 'queued',
          num_segments: '1',
        }),
      );
    };
    req.on('end', () => (options.delayMs ? setTimeout(answer, options.delayMs) : answer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, requests, maxInFlight: () => most };
}

/** The SDK's own HTTP client, sending to the fake instead of api.twilio.com. */
export class LoopbackClient extends twilio.RequestClient {
  constructor(private readonly base: string) {
    super();
  }
  override request<T>(opts: RequestClient.RequestOptions<T>) {
    return super.request<T>({ ...opts, uri: opts.uri.replace(/^https:\/\/api\.twilio\.com/, this.base) });
  }
}
