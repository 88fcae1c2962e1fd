import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CANCELLED_PARAM, withCountdownShell } from '../../common/emergency-shell.js';
import { emergencyPage } from '../features/alerts/page.js';
import { tokenHash } from '../features/owner/index.js';
import { MINUTE } from '../lib/time.js';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Shells written per token and client address in a minute; past it the page loads its data itself. */
const SHELLS_PER_MINUTE = 60;

/** `body` compressed as the browser accepts it (Brotli, else gzip), with its encoding header. */
async function compressed(request: FastifyRequest, reply: FastifyReply, body: string): Promise<Buffer | string> {
  const accepted = String(request.headers['accept-encoding'] ?? '');
  reply.header('vary', 'accept-encoding');
  if (/\bbr\b/.test(accepted)) {
    reply.header('content-encoding', 'br');
    return brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  }
  if (/\bgzip\b/.test(accepted)) {
    reply.header('content-encoding', 'gzip');
    return gzipAsync(body);
  }
  return body;
}

/**
 * `GET /public/{token}/`: `alert.html` with the countdown already in it and the page's data
 * beside it (common/emergency-shell.ts), so a phone on a slow network sees the countdown and
 * Cancel with the first response instead of after the scripts and a data request. The plain
 * page (which loads its data itself) when the link is dead or inactive, when the page was
 * cancelled before its script ran, or past the per-token limit.
 */
export function emergencyHtml(app: FastifyInstance, distDir: string) {
  const perTokenClient = app.config.BENCH_NO_RATE_LIMIT
    ? undefined
    : app.createRateLimit({
        max: SHELLS_PER_MINUTE,
        timeWindow: MINUTE,
        keyGenerator: (request) => `page-html:${tokenHash((request.params as { token: string }).token)}:${request.ip}`,
      });
  const plain = (reply: FastifyReply) => reply.header('cache-control', 'no-cache').sendFile('alert.html');
  return async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    if (CANCELLED_PARAM in ((request.query as Record<string, unknown> | undefined) ?? {})) return plain(reply);
    const limited = perTokenClient ? await perTokenClient(request) : undefined;
    if (limited && !limited.isAllowed && limited.isExceeded) return plain(reply);
    let page: Awaited<ReturnType<typeof emergencyPage>>;
    try {
      page = await emergencyPage(app, request.params.token);
    } catch {
      // Unknown token, no subscription, or the database failing: the page says which itself.
      return plain(reply);
    }
    if (!(page.countdown_seconds > 0)) return plain(reply);
    const html = withCountdownShell(await readFile(path.join(distDir, 'alert.html'), 'utf8'), page, 'server');
    // The owner's contacts are in it: never kept by a cache.
    reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
    return reply.send(await compressed(request, reply, html));
  };
}
