import path from 'node:path';
import { SQLite } from '../../server/db/sqlite-driver.js';
import type { SeededUser } from './seed.js';
import type { RunningServer } from './server.js';

/** The seeded users' password (tests/e2e/seed.ts). */
const PASSWORD = 'correct horse 42';
const HOUR = 3_600_000;

/** The owner's missed day, as the server raised its alarm. */
export interface MissedDaily {
  /** The owner's session (the home page's proof). */
  access: string;
  refresh: string;
  alertId: string;
  /** The owner's last sign of life before the missed day (ISO). */
  since: string;
}

async function json<T>(base: string, route: string, init: RequestInit & { access?: string } = {}): Promise<T> {
  const { access, ...rest } = init;
  const answer = await fetch(`${base}${route}`, {
    ...rest,
    headers: { 'content-type': 'application/json', ...(access ? { authorization: `Bearer ${access}` } : {}) },
  });
  if (!answer.ok) throw new Error(`${init.method ?? 'GET'} ${route} → ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as T;
}

/**
 * Turns on `user`'s daily check-in, then lets a day go by without it: in the server's database
 * (SQLite in its data directory) the last sign of life goes back 26 hours and the due time 2 hours,
 * past its hour of grace, and the owner's daily timer falls due now. The server's own timer (it
 * looks every second) then raises the `missed_daily` alarm as it would have at the end of the
 * grace: one alert, the contacts' SMS, the schedule moved on. Resolves once the owner's schedule
 * reads "missed".
 */
export async function missDailyCheckin(server: RunningServer, user: SeededUser): Promise<MissedDaily> {
  const { access, refresh } = await json<{ access: string; refresh: string }>(server.url, '/api/users/auth/login/', {
    method: 'POST',
    body: JSON.stringify({ username: user.username, password: PASSWORD }),
  });
  await json(server.url, '/api/users/me/daily-checkin/', {
    method: 'PUT',
    access,
    body: JSON.stringify({ enabled: true, time: '10:00', every_days: 1, grace_minutes: 60 }),
  });
  const now = Date.now();
  const since = now - 26 * HOUR;
  const db = new SQLite(path.join(server.dataDir, 'alerta.sqlite'), { timeout: 10_000 });
  try {
    const { id } = db.prepare('SELECT id FROM users WHERE username = ?').get(user.username) as { id: string };
    db.transaction(() => {
      db.prepare(
        'UPDATE daily_checkins SET anchor_at = ?, last_ok_at = ?, next_due_at = ?, reminded_due_at = NULL WHERE user_id = ?',
      ).run(since, since, now - 2 * HOUR, id);
      db.prepare("UPDATE jobs SET due_at = ? WHERE kind = 'daily' AND subject = ?").run(now, id);
    })();
  } finally {
    db.close();
  }
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const view = await json<{ status: string; alert_id: string | null }>(server.url, '/api/users/me/daily-checkin/', {
      access,
    });
    if (view.status === 'missed' && view.alert_id) {
      return { access, refresh, alertId: view.alert_id, since: new Date(since).toISOString() };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the missed daily check-in raised no alarm');
}
