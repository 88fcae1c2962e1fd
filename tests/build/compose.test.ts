import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../server/config.js';

// compose.yaml as docker compose (and podman-compose) reads it, with .env made from .env.example
// as docs/DEPLOY.md says: no engine runs here, so what each container would be given is worked
// out from the file and handed to the server's own configuration.
const root = path.resolve(import.meta.dirname, '../..');

interface Service {
  environment?: Record<string, string>;
  env_file?: string;
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  networks?: unknown;
  build?: string;
}

/** KEY=value lines, as compose reads an env file (comments and blank lines skipped). */
function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}

/** compose.yaml with `${NAME}`, `${NAME:-default}` and `${NAME:?message}` filled from `env`. */
function composeWith(env: Record<string, string>): { services: Record<string, Service>; networks?: unknown } {
  const text = readFileSync(path.join(root, 'compose.yaml'), 'utf8').replace(
    /\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g,
    (_all, name: string, kind?: string, rest?: string) => {
      if (env[name]) return env[name];
      if (kind === '?') throw new Error(`compose refuses to start: ${rest}`);
      return kind === '-' ? (rest ?? '') : '';
    },
  );
  return parse(text, { merge: true });
}

/** The .env DEPLOY.md has the operator write: .env.example with the compose settings filled in. */
const dotEnv = (password: string) => ({
  ...envFile(readFileSync(path.join(root, '.env.example'), 'utf8')),
  ALERTA_HOST: 'alerta.example.org',
  POSTGRES_PASSWORD: password,
  JWT_SECRET: 'a'.repeat(48),
});

/** What one container is given: its env file, then `environment` over it. */
const containerEnv = (service: Service, env: Record<string, string>) => ({
  ...(service.env_file ? env : {}),
  ...service.environment,
});

const compose = composeWith(dotEnv('x'));
const caddy = compose.services.caddy!;
/** The server processes: the services built from this repository. */
const replicas = Object.keys(compose.services).filter((name) => compose.services[name]?.build === '.');

describe('compose.yaml', () => {
  it('gives every replica a configuration the server accepts, whatever characters the password holds', () => {
    expect(replicas.length).toBeGreaterThanOrEqual(2);
    // As `openssl rand -base64 24` makes them, and worse.
    for (const password of ['Kq9/x+w=abc', '5432/Z', 'a?b#c@d:e%f']) {
      const env = dotEnv(password);
      const services = composeWith(env).services;
      expect(services.postgres?.environment?.POSTGRES_PASSWORD).toBe(password);
      for (const name of replicas) {
        const given = containerEnv(services[name]!, env);
        const config = loadConfig(given);
        expect(config.DATABASE_URL).toBe('postgres://alerta@postgres:5432/alerta');
        // pg reads the password from PGPASSWORD when the URL has none.
        expect(given.PGPASSWORD).toBe(password);
        expect(config.APP_URL).toBe('https://alerta.example.org');
      }
    }
  });

  it('keeps each replica’s data in its volume, whatever .env says about DATA_DIR', () => {
    for (const env of [dotEnv('x'), { ...dotEnv('x'), DATA_DIR: './data' }]) {
      for (const name of replicas) {
        const service = composeWith(env).services[name]!;
        const mounts = (service.volumes ?? []).map((volume) => volume.split(':')[1]);
        expect(mounts).toContain(loadConfig(containerEnv(service, env)).DATA_DIR);
      }
    }
  });

  it('names services, never addresses: no fixed address or address range', () => {
    const text = readFileSync(path.join(root, 'compose.yaml'), 'utf8');
    expect(text).not.toMatch(/ipv4_address|ipv6_address|ipam|subnet/);
    // podman-compose 1.0.3 reads only the short form of a service's networks.
    for (const [name, service] of Object.entries(compose.services))
      expect(Array.isArray(service.networks ?? []), name).toBe(true);
    for (const name of replicas)
      expect(loadConfig(containerEnv(compose.services[name]!, {})).TRUST_PROXY).not.toBe(false);
  });

  it('starts each service once what it needs is healthy, and Caddy checks each replica’s readiness', () => {
    const upstreams = (caddy.environment?.ALERTA_UPSTREAMS ?? '').split(/\s+/).filter(Boolean);
    expect(upstreams).toEqual(replicas.map((name) => `${name}:8080`));
    for (const name of replicas) {
      const service = compose.services[name]!;
      expect(service.healthcheck?.test.join(' ')).toContain('/api/ready');
      expect(service.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
      expect(caddy.depends_on?.[name]).toEqual({ condition: 'service_healthy' });
    }
    const mounted = (caddy.volumes ?? []).find((volume) => volume.endsWith(':/etc/caddy/Caddyfile:ro'));
    const caddyfile = readFileSync(path.join(root, mounted!.split(':')[0]!), 'utf8');
    expect(caddyfile).toMatch(/reverse_proxy \{\$ALERTA_UPSTREAMS[^}]*\} \{[\s\S]*health_uri \/api\/ready/);
  });

  it('has the docs name only services it defines in their `docker compose` commands', () => {
    const named: string[] = [];
    for (const file of ['README.md', 'docs/DEPLOY.md', 'docs/OPERATIONS.md', '.env.example']) {
      const text = readFileSync(path.join(root, file), 'utf8');
      // A command ends at the end of its line, its code span, a pipe, a redirection or a comment.
      for (const [, verb, rest] of text.matchAll(/docker compose ([a-z]+)\b([^`\n|#;<>]*)/g)) {
        const words = rest!.split(/\s+/).filter((word) => word && !word.startsWith('-'));
        // exec and run take one service, then the command to run in it; the others take services.
        for (const service of verb === 'exec' || verb === 'run' ? words.slice(0, 1) : words)
          named.push(`${file}: docker compose ${verb} ${service}`);
      }
    }
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((command) => !(command.split(' ').at(-1)! in compose.services))).toEqual([]);
  });
});
