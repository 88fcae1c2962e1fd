import { buildApp, loggerOptions } from './app.js';
import { ConfigError, checkProviders, loadConfig, resolveJwtSecret } from './config.js';
import { outboxServed, outboxUrl } from './features/dev/outbox-routes.js';

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

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal} received: finishing in-flight requests`);
    const timer = setTimeout(() => process.exit(1), 15_000);
    timer.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    console.error(`alerta: cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}`);
    process.exit(1);
  }
  app.log.info(
    `Alerta ${app.appVersion} at ${config.APP_URL} · database ${app.dialect} · mail ${app.mail.name} · sms ${app.sms.name} · payments ${app.payments.name}` +
      (outboxServed(app)
        ? ` · Dev outbox: ${outboxUrl(app)}`
        : app.mail.name === 'outbox' || app.sms.name === 'outbox'
          ? ' · dev outbox off (NODE_ENV=production)'
          : ''),
  );
}

void main();
