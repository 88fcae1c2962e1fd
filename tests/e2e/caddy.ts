import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
/** The host name the browser and the checks use; Chromium maps it to 127.0.0.1 (--host-resolver-rules). */
export const PROXY_HOST = 'alerta.test';

/** A TCP port free on loopback now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Debian's programs the proxy test needs, with what installs each when missing. */
export function missingTools(): string[] {
  const tools = { caddy: 'caddy', certutil: 'libnss3-tools' };
  return Object.entries(tools)
    .filter(([tool]) => !['/usr/bin', '/usr/sbin', '/bin'].some((dir) => existsSync(path.join(dir, tool))))
    .map(([tool, pkg]) => `${tool} (apt-get install ${pkg})`);
}

export interface RunningCaddy {
  /** `https://alerta.test:<port>` */
  origin: string;
  port: number;
  /** Caddy's local root certificate (PEM file), which signed the site's certificate. */
  rootCertPath: string;
  /** A request through Caddy from Node, trusting only its root. */
  request(pathname: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }>;
  stop(): Promise<void>;
}

/**
 * Debian's Caddy serving deploy/Caddyfile on loopback high ports, with its own local authority
 * instead of Let's Encrypt (`local_certs`) and its data in a temporary home, in front of
 * `upstreams` (`127.0.0.1:<port>` each), serving HTTPS on `port`.
 */
export async function startCaddy(upstreams: string[], port: number): Promise<RunningCaddy> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'alerta-caddy-'));
  const httpPort = await freePort();
  const config = path.join(home, 'Caddyfile');
  writeFileSync(
    config,
    [
      '{',
      '\tadmin off',
      `\thttp_port ${httpPort}`,
      `\thttps_port ${port}`,
      '\tlocal_certs',
      '\tskip_install_trust',
      '}',
      `import ${path.join(root, 'deploy/Caddyfile')}`,
      '',
    ].join('\n'),
  );
  let log = '';
  const child: ChildProcess = spawn('caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_CONFIG_HOME: path.join(home, 'config'),
      ALERTA_HOST: `${PROXY_HOST}:${port}`,
      ALERTA_UPSTREAMS: upstreams.join(' '),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk) => (log += chunk));
  const rootCertPath = path.join(home, 'data/caddy/pki/authorities/local/root.crt');

  const request: RunningCaddy['request'] = (pathname) =>
    new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port,
          path: pathname,
          servername: PROXY_HOST,
          headers: { host: `${PROXY_HOST}:${port}` },
          ca: readFileSync(rootCertPath, 'utf8'),
          agent: false,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  // Up once its certificate verifies against its root and a process behind it answers.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`caddy exited with code ${child.exitCode}:\n${log}`);
    const answered = existsSync(rootCertPath) && (await request('/api/health').catch(() => undefined));
    if (answered && answered.status === 200) break;
    if (Date.now() > deadline) throw new Error(`caddy not serving ${PROXY_HOST}:${port} within 30 s:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    origin: `https://${PROXY_HOST}:${port}`,
    port,
    rootCertPath,
    request,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * A home directory whose NSS database (what Chromium on Linux reads, `~/.pki/nssdb`) trusts
 * `rootCertPath` to identify web sites: the browser started with HOME set to it accepts Caddy's
 * local certificates as a phone accepts Let's Encrypt's. Remove it when done.
 */
export function homeTrusting(rootCertPath: string): string {
  const home = mkdtempSync(path.join(os.tmpdir(), 'alerta-browser-home-'));
  const nssdb = path.join(home, '.pki/nssdb');
  mkdirSync(nssdb, { recursive: true });
  execFileSync('certutil', ['-d', `sql:${nssdb}`, '-N', '--empty-password']);
  execFileSync('certutil', ['-d', `sql:${nssdb}`, '-A', '-t', 'C,,', '-n', 'caddy-local-root', '-i', rootCertPath]);
  return home;
}
