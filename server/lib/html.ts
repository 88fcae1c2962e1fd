import type { FastifyReply } from 'fastify';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** A small server-rendered page (dev tools), styled without inline script. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Alerta</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1d2433}
article{border:1px solid #d8dde6;border-radius:.5rem;padding:.75rem 1rem;margin:.75rem 0}
pre{white-space:pre-wrap;word-break:break-word;font-family:inherit;margin:.25rem 0}.meta{color:#5b6475;font-size:.9rem;margin:0}
button{font:inherit;padding:.75rem 1.5rem;border-radius:.5rem;border:0;margin:.25rem;min-height:48px;cursor:pointer}
.primary{background:#c62828;color:#fff}.secondary{background:#e8ebf0;color:#1d2433}</style>
</head><body>${body}</body></html>`;
}

/** Route config of the pages for a person with a browser (a link in an e-mail): not part of the API contract. */
export const NOT_API = { schema: { hide: true } };

/** Answers one of those pages: never cached, never indexed. */
export const htmlPage = (reply: FastifyReply, status: number, body: string) =>
  reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('x-robots-tag', 'noindex')
    .type('text/html; charset=utf-8')
    .send(page('Alerta', body));
