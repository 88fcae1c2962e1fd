import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * `/a/{public_id}`: the live page the alert SMS links to, a static entry of its own
 * (`live.html`) that reads everything from the API. Served only when the app is built.
 */
export default async function livePageRoutes(app: FastifyInstance) {
  const serve = (_request: FastifyRequest, reply: FastifyReply) => {
    // @fastify/static adds sendFile once the built app is found (server/plugins/static.ts).
    const send = (reply as FastifyReply & { sendFile?: (file: string) => FastifyReply }).sendFile;
    if (typeof send !== 'function') return reply.code(404).send({ detail: 'Not found.', code: 'not_found' });
    return reply.header('cache-control', 'no-cache').header('x-robots-tag', 'noindex').sendFile('live.html');
  };
  app.get('/a/:publicId', serve);
  app.get('/a/:publicId/', serve);
}
