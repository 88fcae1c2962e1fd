/**
 * A server process as server/index.ts starts it, whose dev outbox the test that spawned it
 * reads over IPC (`process.send`): behind a proxy (TRUST_PROXY set) the outbox pages answer no
 * one, by design, yet a test must see what was sent. Started by proxied-servers.ts.
 */
import { buildApp, loggerOptions } from '../../server/app.js';
import { loadConfig, resolveJwtSecret } from '../../server/config.js';

const config = loadConfig();
const app = await buildApp({ config, jwtSecret: resolveJwtSecret(config), logger: loggerOptions(config.LOG_LEVEL) });
await app.listen({ port: config.PORT, host: config.HOST });
// The start line tests/e2e/server.ts's listeningUrl reads.
app.log.info(`outbox process (listening on ${app.listeningOrigin})`);

process.on('message', (message) => {
  if (message === 'outbox') process.send?.({ sms: app.outbox.sms.map(({ to, body }) => ({ to, body })) });
});
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
