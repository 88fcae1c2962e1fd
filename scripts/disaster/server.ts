// One server process of the regional-disaster load test (scripts/disaster/run.ts): the real app
// configured from the environment as in production (PostgreSQL, Redis, rate limits and SMS
// budgets on, TRUST_PROXY behind the load generator), whose SMS and escalation calls go through
// the Twilio adapters and the real SDK to a fake Twilio on loopback (DISASTER_TWILIO_URL). Tells its parent the port
// it listens on, and closes cleanly when asked.
import { buildApp, loggerOptions } from '../../server/app.js';
import { loadConfig, resolveJwtSecret } from '../../server/config.js';
import { createTwilioSms } from '../../server/providers/sms/twilio.js';
import { createTwilioVoice } from '../../server/providers/voice/twilio.js';
import { LoopbackClient } from '../../tests/server/twilio-fake.js';

const config = loadConfig();
const twilioUrl = process.env.DISASTER_TWILIO_URL;
if (!twilioUrl || !config.TWILIO_ACCOUNT_SID || !config.TWILIO_AUTH_TOKEN) {
  throw new Error('DISASTER_TWILIO_URL, TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are required');
}
const twilio = {
  accountSid: config.TWILIO_ACCOUNT_SID,
  authToken: config.TWILIO_AUTH_TOKEN,
  httpClient: new LoopbackClient(twilioUrl),
};
const from = config.TWILIO_FROM ?? '';
const app = await buildApp({
  config,
  jwtSecret: resolveJwtSecret(config),
  logger: loggerOptions(config.LOG_LEVEL),
  sms: createTwilioSms({ ...twilio, from, statusCallbackUrl: () => `${config.APP_URL}/api/sms/status/` }),
  voice: createTwilioVoice({ ...twilio, from, callbackBase: () => `${config.APP_URL}/api/voice/` }),
});
await app.listen({ port: config.PORT, host: config.HOST });
const address = app.server.address();
process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
process.on('message', (message: { type?: string }) => {
  if (message.type !== 'stop') return;
  void app.close().then(() => process.exit(0));
});
process.on('disconnect', () => void app.close().then(() => process.exit(0)));
