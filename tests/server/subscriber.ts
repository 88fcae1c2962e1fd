import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { createUser, type TestApp } from './helper.js';

/** A new user on Premium, with the personal alert token their account shows. */
export async function premiumSubscriber(t: TestApp, language: 'pt' | 'en') {
  const user = await createUser(t.app, { language });
  await activateSubscription(t.app.db, { userId: user.user.id, plan: 'premium', now: t.clock.now() });
  const me = await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: user.headers });
  return { ...user, token: me.json().token as string };
}
