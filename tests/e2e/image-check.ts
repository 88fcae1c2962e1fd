// What scripts/test-image.sh asks of the image's server once it runs: `node --import tsx
// tests/e2e/image-check.ts <origin>`. Its health, then one alert as a person sends it: an account
// made through the API, a paid plan, a press on the link, and each contact's SMS in the dev
// outbox exactly once. Prints the plain count line CI reads, and exits 1 on any failure.
import { randomUUID } from 'node:crypto';
import { outboxSms, seedUser } from './seed.js';

const origin = process.argv[2];
if (!origin) throw new Error('usage: tests/e2e/image-check.ts <origin>');

const checks: [string, () => Promise<void>][] = [];
const check = (name: string, run: () => Promise<void>) => checks.push([name, run]);
const assert = (ok: boolean, message: string) => {
  if (!ok) throw new Error(message);
};

check('GET /api/health answers ok with the database', async () => {
  const res = await fetch(`${origin}/api/health`);
  const body = (await res.json()) as { status?: string; db?: string };
  assert(res.status === 200 && body.status === 'ok' && body.db === 'ok', `${res.status} ${JSON.stringify(body)}`);
});

check('GET /api/ready answers ready', async () => {
  const res = await fetch(`${origin}/api/ready`);
  assert(res.status === 200, `${res.status} ${await res.text()}`);
});

check('an alert reaches each contact once through the dev outbox', async () => {
  const user = await seedUser(origin, { countdownSeconds: 0 });
  const res = await fetch(`${origin}/api/emergency/public/${user.token}/alerts/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ mode: 'real', location: null, location_error: 'unavailable' }),
  });
  assert(res.status === 201, `alert answered ${res.status} ${await res.text()}`);
  const mine = async () => (await outboxSms(origin)).filter((m) => m.body.includes(user.username));
  const deadline = Date.now() + 15_000;
  while ((await mine()).length < user.contacts.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const sms = await mine();
  for (const contact of user.contacts) {
    const count = sms.filter((m) => m.to === contact.phone_number).length;
    assert(count === 1, `${contact.phone_number} got ${count} SMS`);
  }
});

let failed = 0;
for (const [name, run] of checks) {
  try {
    await run();
    console.log(`image: ok   ${name}`);
  } catch (error) {
    failed += 1;
    console.log(`image: FAIL ${name}: ${(error as Error).message}`);
  }
}
console.log(`image: ${checks.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
