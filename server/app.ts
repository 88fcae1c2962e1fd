import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { PRERENDERED_ROUTES } from '../common/app-routes.js';
import { DEFAULT_PUBLIC_CONFIG } from '../common/default-config.js';
import type { Config } from './config.js';
import { type DatabaseHandle, openDatabase } from './db/index.js';
import { type SummaryMails, summaryMails } from './features/accounts/mail-summaries.js';
import accountRoutes from './features/accounts/routes.js';
import alertsFeature from './features/alerts/index.js';
import { publicConfig } from './features/billing/plans.js';
import billingRoutes from './features/billing/routes.js';
import checkinsFeature from './features/checkins/index.js';
import configRoutes from './features/config/routes.js';
import contactRoutes from './features/contacts/routes.js';
import tokenRoutes from './features/contacts/token-routes.js';
import { logCapturedWhereUnreachable } from './features/dev/outbox-address.js';
import outboxRoutes, { outboxServed } from './features/dev/outbox-routes.js';
import emergencyPageRoutes from './features/emergency-page/routes.js';
import escalationFeature from './features/escalation/index.js';
import healthRoutes from './features/health/routes.js';
import liveFeature from './features/live/index.js';
import metricsFeature from './features/metrics/routes.js';
import smsRepliesFeature from './features/sms-replies/index.js';
import { createJobs, type JobKind, type Jobs, kindSettings } from './jobs/index.js';
import { Background } from './lib/background.js';
import { type Clock, DatabaseClock, ManualClock, systemClock } from './lib/clock.js';
import { createPeriodicJobs, type PeriodicJobs } from './lib/periodic.js';
import { redactLogFields, redactPhoneNumbers, redactUrl } from './lib/redact.js';
import { normaliseTarget } from './lib/request-target.js';
import { projectRoot } from './lib/root.js';
import { SECOND } from './lib/time.js';
import apiPlugin from './plugins/api.js';
import authPlugin from './plugins/auth.js';
import connectionsPlugin, { SERVER_TIMEOUTS } from './plugins/connections.js';
import databasePlugin, { followDatabaseClock } from './plugins/database.js';
import errorsPlugin, { clientErrorHandler, frameworkErrors } from './plugins/errors.js';
import overloadPlugin, { type LoadProbe } from './plugins/overload.js';
import securityPlugin from './plugins/security.js';
import staticPlugin from './plugins/static.js';
import { createOutboxMail } from './providers/mail/outbox.js';
import type { MailPort } from './providers/mail/port.js';
import { createSmtpMail } from './providers/mail/smtp.js';
import { DevOutbox } from './providers/outbox.js';
import { createPayments } from './providers/payments/index.js';
import type { PaymentsPort } from './providers/payments/port.js';
import type { PushPort } from './providers/push/port.js';
import { createWebPush } from './providers/push/web-push.js';
import { createOutboxSms } from './providers/sms/outbox.js';
import type { SmsPort } from './providers/sms/port.js';
import { createTwilioSms } from './providers/sms/twilio.js';
import { createOutboxVoice } from './providers/voice/outbox.js';
import type { VoicePort } from './providers/voice/port.js';
import { createTwilioVoice } from './providers/voice/twilio.js';

const { version } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    clock: Clock;
    appVersion: string;
    outbox: DevOutbox;
    mail: MailPort;
    sms: SmsPort;
    payments: PaymentsPort;
    /** Web Push (check-in reminders). */
    push: PushPort;
    /** Voice calls (escalation). */
    voice: VoicePort;
    /** Work done after the answer (see lib/background.ts); `idle()` waits for it. */
    background: Background;
    /** The periodic jobs (lib/periodic.ts): started when the server is ready, stopped before it closes. */
    periodic: PeriodicJobs;
    /** The job engine every piece of later work runs on (server/jobs/); `runDue()` lets tests run them. */
    jobs: Jobs<JobKind>;
    /** The summary mail of each kind of e-mail burst, added by the feature whose e-mails it gathers. */
    summaryMails: SummaryMails;
  }
}

export interface AppOptions {
  config: Config;
  jwtSecret: string;
  /** An open database; when omitted one is opened from the config and closed with the app. */
  database?: DatabaseHandle;
  clock?: Clock;
  mail?: MailPort;
  sms?: SmsPort;
  payments?: PaymentsPort;
  push?: PushPort;
  voice?: VoicePort;
  logger?: FastifyServerOptions['logger'];
  /** Where the built web app lives (default `dist/`). */
  distDir?: string;
  /** What the load shedding reads (default: the load sampler's readings of this process, plugins/load-sampler.ts). */
  loadProbe?: LoadProbe;
}

/** Log options: no bodies, no headers, URLs with their secrets masked, phone numbers cut short. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    serializers: {
      req: (request: { method: string; url: string }) => ({ method: request.method, url: redactUrl(request.url) }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
    },
    formatters: { log: (record: Record<string, unknown>) => redactLogFields(record) as Record<string, unknown> },
    hooks: {
      logMethod(this: unknown, args: unknown[], method: (...args: unknown[]) => void) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === 'string' ? redactPhoneNumbers(arg) : arg)),
        );
      },
    },
  };
}

/** TRUST_PROXY for Fastify: a hop count trusts that many proxies nearest the server, and nothing further out. */
function trustProxyOption(setting: Config['TRUST_PROXY']) {
  if (typeof setting !== 'number') return setting;
  return (_address: string, hop: number) => hop < setting;
}

/** Builds the whole server: plugins first, then the routes of each feature. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.LOG_LEVEL),
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    // One spelling per target before routing, limits and headers: an absolute-form
    // `GET http://host/api/…` or `/api/./x/../y/` meets the same ceiling, no-store and noindex.
    rewriteUrl: (request) => normaliseTarget(request.url ?? '/'),
    bodyLimit: 64 * 1024,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // The router's and Node's parser's refusals in the API's error shape (plugins/errors.ts).
    frameworkErrors,
    clientErrorHandler,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Nothing stalled holds a connection: requests still arriving, idle ones, unread answers.
    ...SERVER_TIMEOUTS,
  });
  // A clock tests move by hand stands for the database's too; any other follows the database's.
  const clock: Clock =
    options.clock instanceof ManualClock ? options.clock : new DatabaseClock(options.clock ?? systemClock);
  const outbox = new DevOutbox();
  const now = () => clock.now();

  app.decorate('config', config);
  app.decorate('clock', clock);
  app.decorate('appVersion', version);
  app.decorate('outbox', outbox);
  app.decorate(
    'mail',
    options.mail ??
      (config.SMTP_URL ? createSmtpMail(config.SMTP_URL, config.MAIL_FROM) : createOutboxMail(outbox, now)),
  );
  app.decorate(
    'sms',
    options.sms ??
      (config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN
        ? createTwilioSms({
            accountSid: config.TWILIO_ACCOUNT_SID,
            authToken: config.TWILIO_AUTH_TOKEN,
            from: config.TWILIO_FROM,
            messagingServiceSid: config.TWILIO_MESSAGING_SERVICE_SID,
            // Read at each send: with PORT=0 and no APP_URL, APP_URL names the port bound later.
            statusCallbackUrl: () => `${config.APP_URL}/api/sms/status/`,
          })
        : createOutboxSms(outbox, now)),
  );
  const voiceFrom = config.TWILIO_VOICE_FROM ?? config.TWILIO_FROM;
  app.decorate(
    'voice',
    options.voice ??
      (config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN && voiceFrom
        ? createTwilioVoice({
            accountSid: config.TWILIO_ACCOUNT_SID,
            authToken: config.TWILIO_AUTH_TOKEN,
            from: voiceFrom,
            callbackBase: () => `${config.APP_URL}/api/voice/`,
          })
        : createOutboxVoice(outbox, now)),
  );
  app.decorate('payments', options.payments ?? createPayments(config, now));
  app.decorate('push', options.push ?? createWebPush(config, outbox, now));
  app.decorate(
    'background',
    new Background((error) => app.log.error({ reason: error.message }, 'background work failed')),
  );
  app.decorate(
    'periodic',
    createPeriodicJobs((name, error) => app.log.warn({ err: error, job: name }, 'periodic job failed; it runs again')),
  );
  // Before the first sweep: a kind without its handler refuses to start, and rows of kinds no
  // handler knows are said.
  app.addHook('onReady', async () => app.jobs.ready());
  app.addHook('onReady', async () => app.periodic.start());
  app.addHook('preClose', async () => app.periodic.stop());
  app.addHook('preClose', async () => app.background.stop());
  app.addHook('onClose', async () => {
    await app.background.idle();
    await app.mail.close?.();
    await app.sms.close?.();
    await app.payments.close?.();
  });
  // Named so other plugins can declare they need the clock.
  await app.register(fp(async () => {}, { name: 'clock' }));

  const database =
    options.database ??
    openDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      onConnectionError: (error) => app.log.error({ err: error }, 'database connection error'),
    });
  await app.register(databasePlugin, { handle: database, closeOnExit: !options.database });
  if (clock instanceof DatabaseClock) await followDatabaseClock(app, clock);
  app.decorate(
    'jobs',
    createJobs({ db: app.db, dialect: app.dialect, clock, log: app.log, kinds: kindSettings(config) }),
  );
  app.decorate('summaryMails', summaryMails());
  // Due jobs run within a second of their time, and at once when the server starts.
  app.periodic.every('jobs', SECOND, () => app.jobs.runDue());
  await app.register(errorsPlugin);
  // Connections capped in all and per address before any request is read on them.
  await app.register(connectionsPlugin, { config });
  // First of the request hooks: an overloaded process refuses before doing any other work.
  await app.register(overloadPlugin, { config, probe: options.loadProbe });
  await app.register(apiPlugin);
  await app.register(securityPlugin, { config });
  await app.register(authPlugin, { secret: options.jwtSecret });

  await app.register(healthRoutes);
  // Before the features: it counts what their provider ports do (features/metrics/instrument.ts).
  await app.register(metricsFeature);
  await app.register(configRoutes);
  await app.register(accountRoutes);
  await app.register(emergencyPageRoutes);
  await app.register(contactRoutes);
  await app.register(tokenRoutes);
  await app.register(billingRoutes);
  await app.register(alertsFeature);
  await app.register(checkinsFeature);
  await app.register(import('./features/daily/index.js'));
  await app.register(escalationFeature);
  await app.register(liveFeature);
  await app.register(smsRepliesFeature);
  if (outboxServed(app)) {
    await app.register(outboxRoutes);
    logCapturedWhereUnreachable(app);
  }

  await app.register(staticPlugin, {
    distDir: options.distDir ?? process.env.ALERTA_DIST_DIR ?? path.join(projectRoot, 'dist'),
    // The pricing page is drawn with the default terms: a server set to others lets the app
    // draw it with its own, asked for at once.
    drawnRoutes: PRERENDERED_ROUTES.filter(
      (route) => route !== '/pricing' || isDeepStrictEqual(publicConfig(config), DEFAULT_PUBLIC_CONFIG),
    ),
  });
  return app;
}
