import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { buildApp, loggerOptions } from './app.js';
import { ConfigError, checkProviders, loadConfig, resolveJwtSecret, settleAppUrl } from './config.js';
import { outboxAddress } from './features/dev/outbox-address.js';
import { outboxServed } from './features/dev/outbox-routes.js';

/** How long in-flight requests get to finish once the server is asked to stop (ms). */
const SHUTDOWN_DELAY_MS = 15_000;

/** Starts the server from the environment and stops it cleanly on SIGTERM or SIGINT. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  let jwtSecret: string;
  try {
    config = loadConfig();
    checkProviders(config);
    jwtSecret = resolveJwtSecret(config);
  } catch (error) {
    const message =
      error instanceof ConfigError ? error.message : `Cannot prepare DATA_DIR: ${(error as Error).message}`;
    console.error(`alerta: ${message}`);
    process.exit(1);
  }

  const app = await buildApp({ config, jwtSecret, logger: loggerOptions(config.LOG_LEVEL) }).catch((error: Error) => {
    console.error(`alerta: cannot start: ${error.message}`);
    process.exit(1);
  });

  // SIGTERM, SIGINT (and the other termination signals), an uncaught error: finish in-flight
  // requests, end live streams and stop the dispatcher and the job engine (app.close), then exit; a
  // second signal, or a close still running after SHUTDOWN_DELAY_MS, exits at once with code 1.
  closeWithGrace({ delay: SHUTDOWN_DELAY_MS, logger: app.log }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'unexpected error: closing');
    else app.log.info(`${signal ?? 'exit'} received: finishing in-flight requests`);
    await app.close();
  });

  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    console.error(`alerta: cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}`);
    process.exit(1);
  }
  const bound = app.server.address();
  const port = bound && typeof bound === 'object' ? bound.port : config.PORT;
  settleAppUrl(config, port);
  app.log.info(
    `Alerta ${app.appVersion} at ${config.APP_URL} (listening on ${app.listeningOrigin}) · database ${app.dialect} · mail ${app.mail.name} · sms ${app.sms.name} · payments ${app.payments.name}` +
      outboxLine(app, port),
  );
}

/** The start line's word on the dev outbox: an address that opens it, or why none does and where its messages go. */
function outboxLine(app: FastifyInstance, port: number): string {
  if (!outboxServed(app)) {
    return app.mail.name === 'outbox' || app.sms.name === 'outbox' ? ' · dev outbox off (NODE_ENV=production)' : '';
  }
  const where = outboxAddress(app.config, port);
  if ('url' in where) return ` · Dev outbox: ${where.url}`;
  return ` · dev outbox: no address opens it (${where.unreachable}); captured e-mails and SMS are written to this log`;
}

void main();
