import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { openDatabase } from '../server/db/index.js';
import { queuedDelivery } from '../server/features/alerts/deliveries.js';
import { smsJob } from '../server/features/alerts/deliveries-repository.js';
import { insertAlert } from '../server/features/alerts/repository.js';
import type { SmsPort } from '../server/providers/sms/port.js';
import { adminQuery, benchAlert, seedOwners } from './fixtures.js';

export interface FanOutResult {
  db: 'SQLite' | 'PostgreSQL';
  alerts: number;
  contactsPerAlert: number;
  providerDelayMs: number;
  /** From starting the dispatcher to the provider accepting the last message. */
  seconds: number;
  deliveriesPerSecond: number;
  /** Most messages the fake provider held at once: the concurrency the dispatcher used. */
  maxInFlight: number;
  sent: number;
}

/** A provider that takes `delayMs` per message and counts how many it holds at once. */
function slowSms(delayMs: number) {
  let inFlight = 0;
  let maxInFlight = 0;
  let sent = 0;
  let lastAt = 0;
  let onSent: (() => void) | undefined;
  const port: SmsPort = {
    name: 'outbox',
    async send() {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      inFlight -= 1;
      sent += 1;
      lastAt = performance.now();
      onSent?.();
      return { providerMessageId: `SMfan${sent}` };
    },
    onStatus() {},
  };
  return {
    port,
    stats: () => ({ maxInFlight, sent, lastAt }),
    until: (count: number) =>
      new Promise<void>((resolve) => {
        onSent = () => sent >= count && resolve();
      }),
  };
}

/**
 * Part 5: `alerts` alerts of `contacts` contacts each, all queued before the dispatcher starts,
 * sent through a provider that takes `delayMs` per message by the app's own dispatcher.
 */
export async function measureFanOut(options: {
  alerts: number;
  contacts: number;
  delayMs: number;
  pgUrl?: string;
}): Promise<FanOutResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-fanout-'));
  const schema = options.pgUrl ? `bench_${randomBytes(5).toString('hex')}` : undefined;
  const admin = (query: string) => adminQuery(options.pgUrl, query);
  if (schema) await admin(`create schema ${schema}`);
  const database = openDatabase({ databaseUrl: options.pgUrl, dataDir, ...(schema ? { pgSchema: schema } : {}) });
  const sms = slowSms(options.delayMs);
  const app = await buildApp({
    config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
    jwtSecret: randomBytes(32).toString('hex'),
    database,
    sms: sms.port,
    logger: false,
    distDir: path.join(dataDir, 'no-dist'),
  });
  try {
    // The app's job engine starts when the app is ready; until then everything only queues.
    const now = Date.now();
    const [owner] = await seedOwners(app.db, { owners: 1, contacts: 0, countdown: 0, language: 'en' });
    if (!owner) throw new Error('no owner seeded');
    for (let a = 0; a < options.alerts; a += 1) {
      const alert = benchAlert(owner.id, 'fanout needs help.', now);
      const deliveries = Array.from({ length: options.contacts }, (_, c) =>
        queuedDelivery({
          alertId: alert.id,
          recipient: { contact_name: `Contact ${c + 1}`, phone_number: `+35191234567${c}` },
          body: alert.message,
          now,
        }),
      );
      await insertAlert(app.db, alert, deliveries, { jobs: deliveries.map((d) => smsJob(d, now)) });
    }
    const total = options.alerts * options.contacts;
    const done = sms.until(total);
    const started = performance.now();
    await app.ready();
    await done;
    const { maxInFlight, sent, lastAt } = sms.stats();
    const seconds = (lastAt - started) / 1000;
    return {
      db: schema ? 'PostgreSQL' : 'SQLite',
      alerts: options.alerts,
      contactsPerAlert: options.contacts,
      providerDelayMs: options.delayMs,
      seconds: Math.round(seconds * 100) / 100,
      deliveriesPerSecond: Math.round(total / seconds),
      maxInFlight,
      sent,
    };
  } finally {
    await app.close();
    await database.close();
    if (schema) await admin(`drop schema if exists ${schema} cascade`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
