import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/schema.js';
import { noteMailEvent } from '../../server/features/accounts/mail-bursts.js';
import { nextTurn } from '../../server/lib/background.js';
import { type Owner, ownerWithContacts } from './alerts-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';
import { type SeenStatement, watchStatements } from './statements-seen.js';

// A link pressed again and again notes its owner's receipt on one `mail_bursts` row: the receipts
// of a burst are counted together, so none waits on that row's lock for the one before it.

const MINUTE = 60_000;
const SUMMARY = /(\d+) more real emergency alerts? (?:was|were) sent from your link since/;

describe(`receipts counted together, one statement per burst under way (${dbLabel})`, () => {
  const t = suiteApp();

  const summaries = (to: string, app: FastifyInstance = t.app) =>
    app.outbox.emails.filter((mail) => mail.to === to && SUMMARY.test(mail.text));
  // The summaries run from their timers.
  const settle = async () => {
    await t.app.background.idle();
    await t.app.jobs.runDue();
  };
  /** Notes one alert receipt of `owner`, as a real alert does, on `db`. */
  const receiptNoter =
    (owner: Owner, db: Kysely<Database> = t.app.db) =>
    () =>
      noteMailEvent(db, t.app.dialect, {
        kind: 'alert_receipt',
        address: owner.user.email as string,
        userId: owner.user.id,
        now: t.clock.now(),
      });
  /** The statements that counted receipts on a burst's row. */
  const upserts = (seen: SeenStatement[]) => seen.filter((s) => /^insert into "mail_bursts"/.test(s.sql));
  const pendingOf = async (address: string) => {
    const burst = await t.app.db
      .selectFrom('mail_bursts')
      .select('pending')
      .where('address', '=', address)
      .executeTakeFirstOrThrow();
    return Number(burst.pending);
  };

  it('counts the receipts noted in one turn in one statement: the first mailed, the others summarised', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100009']] });
    const email = owner.user.email as string;
    const note = receiptNoter(owner);
    const statements = watchStatements();
    let together: string[];
    let more: string[];
    try {
      together = await Promise.all(Array.from({ length: 10 }, note));
      more = await Promise.all(Array.from({ length: 5 }, note));
    } finally {
      statements.stop();
    }
    expect(together).toEqual(['send', ...Array(9).fill('gathered')]);
    expect(more).toEqual(Array(5).fill('gathered'));
    // One upsert per turn, not one per receipt: a link pressed again and again queues no alert on the burst's row.
    expect(upserts(statements.seen)).toHaveLength(2);
    expect(await pendingOf(email)).toBe(14);
    moveTime(t, 10 * MINUTE);
    await settle();
    expect(summaries(email)).toHaveLength(1);
    expect(summaries(email)[0]?.text).toContain('14 more real emergency alerts were sent from your link since');
  });

  it('counts the receipts noted while the burst’s statement runs in one next statement, whatever their turn', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100010']] });
    const email = owner.user.email as string;
    // The burst's first statement is held until released, as a loaded database makes it wait (on
    // SQLite the first one through the plugin is the savepoint of the commit it shares).
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = true;
    const db = t.app.db.withPlugin({
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        if (holding) {
          holding = false;
          await held;
        }
        return result;
      },
    });
    const note = receiptNoter(owner, db);
    const statements = watchStatements();
    let decisions: string[];
    try {
      const first = note();
      const later: Promise<string>[] = [];
      // Each noted in a turn of its own, while the first one's statement is under way.
      for (let i = 0; i < 4; i += 1) {
        await nextTurn();
        later.push(note());
      }
      release();
      decisions = await Promise.all([first, ...later]);
    } finally {
      release();
      statements.stop();
    }
    expect(decisions).toEqual(['send', ...Array(4).fill('gathered')]);
    expect(upserts(statements.seen)).toHaveLength(2);
    expect(await pendingOf(email)).toBe(4);
  });
});
